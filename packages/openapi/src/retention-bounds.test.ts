import { RETENTION_SECONDS } from "@mailstop/core";
import { publicDocument } from "./document";

/** Every `retention_seconds` property of the document's schemas, by where it is. */
function retentionProperties(node: unknown, path = "#"): Array<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== "object") return [];
  const found: Array<[string, Record<string, unknown>]> = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value !== null && typeof value === "object" && "retention_seconds" in value) {
      found.push([`${path}/properties/retention_seconds`, (value as Record<string, Record<string, unknown>>).retention_seconds!]);
    }
    found.push(...retentionProperties(value, `${path}/${key}`));
  }
  return found;
}

describe("the OpenAPI document's retention bounds", () => {
  // Requests are validated against the document, while GET /v1/retention and the default come
  // from RETENTION_SECONDS: the two must say the same.
  it("are RETENTION_SECONDS on every request schema that takes retention_seconds", () => {
    const bounded = retentionProperties(publicDocument().components.schemas).filter(([, schema]) => "minimum" in schema || "maximum" in schema);
    expect(bounded.length).toBeGreaterThanOrEqual(3);
    for (const [where, schema] of bounded) {
      expect({ where, minimum: schema.minimum, maximum: schema.maximum }).toEqual({ where, minimum: RETENTION_SECONDS.min, maximum: RETENTION_SECONDS.max });
    }
  });
});
