import { ID_PREFIXES, isId, newId, newTransactionId, pooledRandom, transactionTime } from "./ids";

describe("ids", () => {
  it("are a prefix and a lower-case ULID", () => {
    for (const kind of Object.keys(ID_PREFIXES) as (keyof typeof ID_PREFIXES)[]) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-z]{26}$`));
      expect(isId(kind, id)).toBe(true);
    }
  });

  it("use exactly the documented prefixes", () => {
    expect(Object.values(ID_PREFIXES).sort()).toEqual(["att", "dom", "evt", "ibx", "key", "msg", "org", "prj", "req", "wha", "whe", "whk"]);
  });

  it("sort in creation order, also within one millisecond", () => {
    const ids = Array.from({ length: 500 }, () => newId("inbox"));
    expect([...ids].sort()).toEqual(ids);
  });

  it("are recognised by kind", () => {
    expect(isId("inbox", newId("message"))).toBe(false);
    expect(isId("inbox", "ibx_nope")).toBe(false);
    expect(isId("inbox", "ibx_01M80PTKAZ7RRPA2NAXHHM2MG3")).toBe(false);
  });

  it("draw their randomness from the pooled CSPRNG: values in [0, 1), fresh across refills", () => {
    const draws = Array.from({ length: 3000 }, () => pooledRandom());
    expect(draws.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(new Set(draws).size).toBeGreaterThan(2990);
    // Three pools' worth: a refill that repeated the previous pool would show here.
    expect(new Set(draws.slice(0, 1024)).size + new Set(draws.slice(1024, 2048)).size).toBe(new Set(draws.slice(0, 2048)).size);
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});

describe("transactionTime", () => {
  it("reads the time a transaction id was minted, and nothing from other strings", () => {
    const before = Date.now();
    const time = transactionTime(newTransactionId());
    expect(time!.getTime()).toBeGreaterThanOrEqual(before);
    expect(time!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(transactionTime(newTransactionId(Date.UTC(2026, 0, 2)))).toEqual(new Date(Date.UTC(2026, 0, 2)));
    expect(transactionTime("not-a-ulid")).toBeNull();
    expect(transactionTime("msg_01jbz0000000000000000000000")).toBeNull();
  });
});
