import { SmtpReplyReader } from "./smtp-replies";

describe("SmtpReplyReader", () => {
  it("joins continuation lines, splits pipelined replies, and waits for a line cut between chunks", () => {
    const reader = new SmtpReplyReader();
    expect(reader.push("250-mx.example\r\n250-PIPELINING\r\n250 SIZE 100\r\n250 2.1.0 Ok\r\n35")).toEqual([
      { code: 250, text: "mx.example\nPIPELINING\nSIZE 100" },
      { code: 250, text: "2.1.0 Ok" },
    ]);
    expect(reader.push("4 End data")).toEqual([]);
    expect(reader.push(" with <CR><LF>.<CR><LF>\r\n")).toEqual([{ code: 354, text: "End data with <CR><LF>.<CR><LF>" }]);
  });
});
