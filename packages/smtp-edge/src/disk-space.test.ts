import { MailstopError } from "@mailstop/core";
import { assertRoomFor, isOutOfSpace } from "./disk-space";

describe("a full disk at the SMTP edge", () => {
  it("tells a write that failed for want of space (ENOSPC, EDQUOT, PostgreSQL's disk_full) however deep its cause", () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    expect(isOutOfSpace(new MailstopError("storage_unavailable", "The object store could not store an object; retry shortly.", { cause: enospc }))).toBe(true);
    expect(isOutOfSpace(new Error("timed out", { cause: Object.assign(new Error("quota"), { code: "EDQUOT" }) }))).toBe(true);
    expect(isOutOfSpace(Object.assign(new Error('could not extend file "base/5/16385": No space left on device'), { code: "53100" }))).toBe(true);
    expect(isOutOfSpace(new MailstopError("storage_unavailable", "down", { cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) }))).toBe(false);
    expect(isOutOfSpace(new Error("the object store: no answer within 10000 ms"))).toBe(false);
    expect(isOutOfSpace(null)).toBe(false);
  });

  it("refuses with 452 4.3.1 only below the minimum plus the message, and never without a guard or with 0", () => {
    const here = process.cwd();
    expect(() => assertRoomFor({ path: here, minFreeBytes: Number.MAX_SAFE_INTEGER }, 10)).toThrow(expect.objectContaining({ responseCode: 452, message: "4.3.1 Insufficient system storage, please retry later" }));
    expect(() => assertRoomFor({ path: here, minFreeBytes: 1 }, 10)).not.toThrow();
    expect(() => assertRoomFor({ path: here, minFreeBytes: 0 }, Number.MAX_SAFE_INTEGER)).not.toThrow();
    expect(() => assertRoomFor(undefined, Number.MAX_SAFE_INTEGER)).not.toThrow();
  });
});
