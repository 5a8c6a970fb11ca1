import { DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS, waitBudget } from "./wait-budget";

describe("waitBudget", () => {
  it("takes what was asked, else the default, within the server's limit", () => {
    expect(waitBudget(5_000, 0, 0)).toBe(5_000);
    expect(waitBudget(undefined, 0, 0)).toBe(DEFAULT_WAIT_TIMEOUT_MS);
    expect(waitBudget(600_000, 0, 0)).toBe(MAX_WAIT_TIMEOUT_MS);
  });

  it("ends a second before the test's own deadline, so the hint is reported", () => {
    expect(waitBudget(undefined, 30_000, 10_000)).toBe(19_000);
    expect(waitBudget(5_000, 30_000, 10_000)).toBe(5_000);
  });

  it("never asks for less than a millisecond when the test is out of time", () => {
    expect(waitBudget(undefined, 30_000, 40_000)).toBe(1);
  });
});
