import Ajv from "ajv";
import { SCHEMAS, arrivalEventSchema, assertJobPayload, checkArrivalEvent, credentialChangeSchema } from "./catalog";

// The catalog compiles its schemas without checking them against JSON Schema's meta-schema (a
// cost at every start): this is where they are checked.
describe("the job and event catalog", () => {
  const strict = new Ajv({ allErrors: true });

  it("has schemas that JSON Schema's meta-schema accepts", () => {
    for (const schema of [...Object.values(SCHEMAS), arrivalEventSchema, credentialChangeSchema]) {
      expect(strict.validateSchema(schema)).toBe(true);
    }
    // The check can fail.
    expect(strict.validateSchema({ type: "object", required: "inbox_id" })).toBe(false);
  });

  it("checks what it is given against them, once compiled on first use", () => {
    expect(() => assertJobPayload("reap", { unexpected: true } as never)).toThrow(/invalid reap payload/);
    expect(checkArrivalEvent({ inbox_id: "ibx_1", message_id: "msg_1", seq: "x" }).problem).toMatch(/seq/);
    expect(checkArrivalEvent({ inbox_id: "ibx_1", message_id: "msg_1", seq: "12" }).event).toEqual({ inbox_id: "ibx_1", message_id: "msg_1", seq: "12" });
  });
});
