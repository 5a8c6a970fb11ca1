import { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { readMessage } from "./read-message";

describe("readMessage", () => {
  it("reports a failure of the raw stream as retryable storage_unavailable, not as an unparseable message", async () => {
    const raw = new Readable({
      read() {
        this.push(Buffer.from("Subject: half\r\nContent-Type: text/plain\r\n\r\nthe start of a body"));
        this.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      },
    });
    const failure = readMessage(raw, async () => 0);
    await expect(failure).rejects.toBeInstanceOf(MailstopError);
    await expect(failure).rejects.toMatchObject({ code: "storage_unavailable", retryable: true });
  });

  it("reports mailparser's own failure as a plain error (the message is stored raw-only)", async () => {
    const raw = Readable.from([Buffer.from(`Subject: x\r\nX-Huge: ${"a".repeat(3 * 1024 * 1024)}\r\n\r\nbody\r\n`)]);
    const failure = readMessage(raw, async () => 0);
    await expect(failure).rejects.not.toBeInstanceOf(MailstopError);
    await expect(failure).rejects.toThrow(/header size/i);
  });
});
