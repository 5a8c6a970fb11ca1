import { MailstopError } from "@mailstop/core";
import { decodeCursor, encodeCursor, pageOf } from "./cursor";

describe("list cursors", () => {
  it("round-trip the position and stay opaque", () => {
    const cursor = encodeCursor("ibx_01m80ptkaz7rrpa2naxhhm2mg3");
    expect(cursor).not.toContain("ibx_");
    expect(decodeCursor(cursor)).toBe("ibx_01m80ptkaz7rrpa2naxhhm2mg3");
    expect(decodeCursor(undefined)).toBeNull();
  });

  it.each(["nope", "", Buffer.from('{"v":2,"before":"x"}').toString("base64url"), Buffer.from("[]").toString("base64url")])(
    "refuses the malformed cursor %p with invalid_request on /cursor",
    (cursor) => {
      let thrown: unknown;
      try {
        decodeCursor(cursor);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MailstopError);
      expect((thrown as MailstopError).code).toBe("invalid_request");
      expect((thrown as MailstopError).details).toEqual({ errors: [expect.objectContaining({ path: "/cursor" })] });
    },
  );

  it("pages rows fetched with limit + 1", () => {
    const rows = [{ id: "c" }, { id: "b" }, { id: "a" }];
    expect(pageOf(rows, 3, (row) => row.id)).toEqual({ items: rows, nextCursor: null });
    const page = pageOf(rows, 2, (row) => row.id);
    expect(page.items).toEqual([{ id: "c" }, { id: "b" }]);
    expect(decodeCursor(page.nextCursor!)).toBe("b");
  });
});
