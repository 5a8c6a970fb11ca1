import { camelCaseRow } from "./camel-case-row";

describe("camelCaseRow", () => {
  it("names every column as a record's field and keeps its value as read", () => {
    const receivedAt = new Date("2026-11-28T00:00:00Z");
    const record = camelCaseRow({ id: "m1", project_id: "p1", received_at: receivedAt, last_check: null, rate_limit_2: 5, to: [] });
    expect(record).toEqual({ id: "m1", projectId: "p1", receivedAt, lastCheck: null, rateLimit2: 5, to: [] });
    expect(record.receivedAt).toBe(receivedAt);
  });

  it("converts the second row of a table with the names the first one learnt", () => {
    expect([camelCaseRow({ envelope_from: "a" }), camelCaseRow({ envelope_from: "b" })]).toEqual([{ envelopeFrom: "a" }, { envelopeFrom: "b" }]);
  });
});
