import { periodEnd, periodStart } from "./metering";

describe("billing period", () => {
  it("is the UTC calendar month", () => {
    expect(periodStart(new Date("2026-11-30T23:59:59Z"))).toBe("2026-11-01");
    expect(periodStart(new Date("2026-12-01T00:00:00Z"))).toBe("2026-12-01");
    expect(periodEnd(new Date("2026-12-31T12:00:00Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
