import { extract, extractCodes, extractLinks, htmlToText, type ExtractionInput } from "./index";

const input = (over: Partial<ExtractionInput>): ExtractionInput => ({ subject: "", text: null, html: null, listUnsubscribe: [], ...over });

describe("extract", () => {
  it("reads codes from the text part, never the HTML, when there is one", () => {
    const message = input({ text: "Your code is 482913", html: "<p>Your code is 551234</p>" });
    expect(extract(message).codes).toEqual(["482913"]);
    expect(extractCodes(message)).toEqual(["482913"]);
  });

  it("reads codes from the HTML's visible text when there is no text part", () => {
    const message = input({ html: "<style>.c{color:#123456}</style><p>Your code</p><p style='font-size:30px'>551234</p>" });
    expect(extract(message).codes).toEqual(["551234"]);
    expect(extractCodes(message)).toEqual(["551234"]);
  });

  it("treats an empty text part as no text part", () => {
    expect(extractCodes(input({ text: " \r\n", html: "<p>Code: 551234</p>" }))).toEqual(["551234"]);
  });

  it("reads the subject either way", () => {
    expect(extractCodes(input({ subject: "482913 is your code" }))).toEqual(["482913"]);
  });

  it("collects links from HTML anchors, the text and List-Unsubscribe", () => {
    const message = input({
      text: "Verify: https://a.test/verify?t=1\nHelp: https://a.test/help",
      html: '<a href="https://a.test/verify?t=1">Verify email</a> <a href="mailto:x@a.test">Mail</a>',
      listUnsubscribe: ["https://a.test/lu", "mailto:lu@a.test"],
    });
    const expected = [
      { url: "https://a.test/verify?t=1", kind: "verify", text: "Verify email" },
      { url: "https://a.test/help", kind: "other", text: null },
      { url: "https://a.test/lu", kind: "unsubscribe", text: null },
    ];
    expect(extract(message).links).toEqual(expected);
    expect(extractLinks(message)).toEqual(expected);
  });

  it("takes text URLs from the HTML's visible text when there is no text part", () => {
    const message = input({ html: "<p>Paste this: https://a.test/confirm/abc.</p>" });
    expect(extractLinks(message)).toEqual([{ url: "https://a.test/confirm/abc", kind: "verify", text: null }]);
  });

  it("returns nothing for an empty message", () => {
    expect(extract(input({}))).toEqual({ codes: [], links: [] });
  });

  it("exports htmlToText", () => {
    expect(htmlToText("<p>a</p><p>b</p>")).toBe("a\nb");
  });
});
