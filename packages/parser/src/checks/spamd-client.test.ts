import { SPAMD_MAX_MESSAGE_BYTES, SpamdError, parseReportAnswer, parseReportRules, spamdPortion } from "./spamd-client";

const answer = (head: string[], body: string) => Buffer.from(`${[...head, ""].join("\r\n")}\r\n${body}`, "utf8");

// What spamd 4.0.1 (Debian bookworm, --local) answered REPORT for a GTUBE message without Date and Message-Id.
const GTUBE_REPORT = [
  'Spam detection software, running on the system "vm",',
  "has identified this incoming email as possible spam.  The original",
  "message has been attached to this so you can view it or label",
  "similar future email.  If you have any questions, see",
  "@@CONTACT_ADDRESS@@ for details.",
  "",
  "Content preview:  XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X",
  "   ",
  "",
  "Content analysis details:   (1003.3 points, 5.0 required)",
  "",
  " pts rule name              description",
  "---- ---------------------- --------------------------------------------------",
  "-0.0 NO_RECEIVED            Informational: message has no Received headers",
  " 2.7 MISSING_DATE           Missing Date: header",
  " 0.6 MISSING_MID            Missing Message-Id: header",
  "-0.0 NO_RELAYS              Informational: message was not relayed via SMTP",
  "1000 GTUBE                  BODY: Generic Test for Unsolicited Bulk Email",
  " 0.0 TVD_SPACE_RATIO        No description available.",
  "",
  "",
].join("\n");

describe("parseReportAnswer", () => {
  it("reads the verdict, score and threshold from the Spam header and each rule from the report's table", () => {
    const body = GTUBE_REPORT;
    expect(parseReportAnswer(answer(["SPAMD/1.1 0 EX_OK", `Content-length: ${Buffer.byteLength(body)}`, "Spam: True ; 1003.3 / 5.0"], body))).toEqual({
      isSpam: true,
      score: 1003.3,
      threshold: 5,
      rules: [
        { name: "NO_RECEIVED", score: 0, description: "Informational: message has no Received headers" },
        { name: "MISSING_DATE", score: 2.7, description: "Missing Date: header" },
        { name: "MISSING_MID", score: 0.6, description: "Missing Message-Id: header" },
        { name: "NO_RELAYS", score: 0, description: "Informational: message was not relayed via SMTP" },
        { name: "GTUBE", score: 1000, description: "BODY: Generic Test for Unsolicited Bulk Email" },
        { name: "TVD_SPACE_RATIO", score: 0, description: "No description available." },
      ],
    });
  });

  it("reads a ham verdict, and a report without rules", () => {
    const body = "Content analysis details:   (-0.1 points, 5.0 required)\n\n pts rule name              description\n---- ---------------------- ----------\n\n";
    expect(parseReportAnswer(answer(["SPAMD/1.1 0 EX_OK", "Spam: False ; -0.1 / 5.0"], body))).toEqual({ isSpam: false, score: -0.1, threshold: 5, rules: [] });
  });

  it("refuses an answer that is not a report: another status, no Spam header, a body shorter than its Content-length, not SPAMD at all", () => {
    expect(() => parseReportAnswer(answer(["SPAMD/1.0 76 Bad header line: (EOF)"], ""))).toThrow(new SpamdError("spamd answered 76 Bad header line: (EOF)"));
    expect(() => parseReportAnswer(answer(["SPAMD/1.1 0 EX_OK", "Content-length: 3"], "abc"))).toThrow(/no Spam header/);
    expect(() => parseReportAnswer(answer(["SPAMD/1.1 0 EX_OK", "Content-length: 300", "Spam: True ; 6.0 / 5.0"], "cut short"))).toThrow(/ended before its Content-length/);
    expect(() => parseReportAnswer(Buffer.from("HTTP/1.1 400 Bad Request\r\n\r\n"))).toThrow(/other than SPAMD/);
    expect(() => parseReportAnswer(Buffer.alloc(0))).toThrow(SpamdError);
  });
});

describe("parseReportRules", () => {
  it("joins a wrapped description, leaves the evidence out, and reads rule names longer than their column", () => {
    const report = [
      "Content analysis details:   (7.2 points, 5.0 required)",
      "",
      " pts rule name              description",
      "---- ---------------------- --------------------------------------------------",
      " 2.5 URIBL_BLACK            Contains an URL listed in the URIBL blacklist",
      "                            [URIs: spam.example]",
      " 1.6 A_VERY_LONG_RULE_NAME_OF_SORTS BODY: A description long enough to be wrapped",
      "                            onto the next line of the table",
      "                                             [a long piece of evidence that is right-justified]",
      "[an even longer piece of evidence, right-justified in 78 columns and so starting at the first]",
      "-1.9 BAYES_00               BODY: Bayes spam probability is 0 to 1%",
      " 5.0 NO_DESCRIPTION        ",
      "",
      "a footer a local template added",
      "1.0 NOT_A_RULE              after the table",
    ].join("\n");
    expect(parseReportRules(report)).toEqual([
      { name: "URIBL_BLACK", score: 2.5, description: "Contains an URL listed in the URIBL blacklist" },
      { name: "A_VERY_LONG_RULE_NAME_OF_SORTS", score: 1.6, description: "BODY: A description long enough to be wrapped onto the next line of the table" },
      { name: "BAYES_00", score: -1.9, description: "BODY: Bayes spam probability is 0 to 1%" },
      { name: "NO_DESCRIPTION", score: 5, description: "" },
    ]);
  });

  it("finds no rules in a text without the table (a report template without _SUMMARY_)", () => {
    expect(parseReportRules("1000 GTUBE BODY: not in a table\n")).toEqual([]);
  });
});

describe("spamdPortion", () => {
  it("sends a source within SPAMD_MAX_MESSAGE_BYTES whole, and cuts a longer one after its last whole line within them", () => {
    const small = Buffer.from("Subject: hi\r\n\r\nbody\r\n");
    expect(spamdPortion(small)).toBe(small);
    const line = `${"x".repeat(98)}\r\n`;
    const large = Buffer.from(`Subject: big\r\n\r\n${line.repeat(Math.ceil(SPAMD_MAX_MESSAGE_BYTES / line.length) + 10)}`);
    const sent = spamdPortion(large);
    expect(sent.length).toBeLessThanOrEqual(SPAMD_MAX_MESSAGE_BYTES);
    expect(sent.length).toBeGreaterThan(SPAMD_MAX_MESSAGE_BYTES - line.length);
    expect(sent.subarray(-2).toString()).toBe("\r\n");
    expect(large.subarray(0, sent.length).equals(sent)).toBe(true);
    const oneLine = Buffer.alloc(SPAMD_MAX_MESSAGE_BYTES + 5, 0x61);
    expect(spamdPortion(oneLine).length).toBe(SPAMD_MAX_MESSAGE_BYTES);
  });
});
