import { ID_PREFIXES, isId, newId } from "./ids";

describe("ids", () => {
  it("are a prefix and a lower-case ULID", () => {
    for (const kind of Object.keys(ID_PREFIXES) as (keyof typeof ID_PREFIXES)[]) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-z]{26}$`));
      expect(isId(kind, id)).toBe(true);
    }
  });

  it("use exactly the prefixes of DECISIONS.md", () => {
    expect(Object.values(ID_PREFIXES).sort()).toEqual(["att", "dom", "evt", "ibx", "key", "msg", "org", "prj", "req", "wha", "whk"]);
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
});
