import { ERROR_CODES } from "@mailstop/core";
import { publicDocument } from "./document";

describe("the OpenAPI document's error codes", () => {
  it("are the error table's codes, no more and no fewer", () => {
    const documented: string[] = publicDocument().components.schemas.ErrorCode.enum;
    expect([...documented].sort()).toEqual([...ERROR_CODES].sort());
  });
});
