import { PLANS } from "./plan";

/** Each value with its key path, an array counted as one value. */
function leaves(value: unknown, path = ""): Array<[string, unknown]> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [[path, value]];
  return Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${path}.${key}`));
}

describe("PLANS", () => {
  it("gives each mode its own side of a setting, and a setting written once to both", () => {
    expect(PLANS.full.ingestMs).toBe(3000);
    expect(PLANS.quick.ingestMs).toBe(300);
    expect(PLANS.full.arrival).toEqual({ lanes: 5, perLane: 100, maxMs: 12_000 });
    expect(PLANS.quick.arrival.lanes).toBe(2);
    expect(PLANS.full.concurrencies).toEqual([1, 10, 50]);
    expect(PLANS.quick.concurrencies).toEqual([1, 10, 50]);
    expect(PLANS.full.laptop.messages).toBe(10_000);
    expect(PLANS.quick.laptop.messages).toBe(200);
    expect(PLANS.quick.checksCost).toEqual({ concurrency: 10, durationMs: 500, warmUpMs: 200, rounds: 1, inProcessMs: 200 });
  });

  it("has the same settings in both modes, each picked down to a number or a list", () => {
    const [full, quick] = [leaves(PLANS.full), leaves(PLANS.quick)];
    expect(quick.map(([path]) => path)).toEqual(full.map(([path]) => path));
    for (const [path, value] of [...full, ...quick]) {
      expect([path, typeof value === "number" || Array.isArray(value)]).toEqual([path, true]);
    }
  });
});
