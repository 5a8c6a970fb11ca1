import { fixtureTag, isValidProjectKey, isValidTag, normaliseTag, runTag, tagHasPrefix } from "./grammar";

describe("tag grammar", () => {
  it.each(["a", "signup", "a.b.c", "run-42", "snake_case.x", "0.9"])("accepts %p", (tag) => {
    expect(isValidTag(tag)).toBe(true);
  });

  it.each(["", ".a", "a.", "a..b", "A", "has space", "café", "a+b", "a/b", "a@b"])("refuses %p", (tag) => {
    expect(isValidTag(tag)).toBe(false);
  });

  it("lower-cases on write, then checks, never slugifies", () => {
    expect(normaliseTag("Signup.Run-1")).toBe("signup.run-1");
    expect(normaliseTag("Sign Up")).toBeNull();
    expect(normaliseTag("ÉTÉ")).toBeNull();
  });

  it("matches a prefix on whole dot segments only", () => {
    expect(tagHasPrefix("a.b", "a.b")).toBe(true);
    expect(tagHasPrefix("a.b.c", "a.b")).toBe(true);
    expect(tagHasPrefix("a.bc", "a.b")).toBe(false);
    expect(tagHasPrefix("a", "a.b")).toBe(false);
  });

  it("derives run and fixture tags", () => {
    expect(runTag("ci-7")).toBe("run.ci-7");
    expect(fixtureTag("ci-7", "signup")).toBe("run.ci-7.signup");
  });
});

describe("project key grammar", () => {
  it.each(["acme", "a1", "local", "p-42", "x".repeat(40)])("accepts %p", (key) => expect(isValidProjectKey(key)).toBe(true));
  it.each(["a", "-acme", "ac.me", "Acme", "ac_me", "x".repeat(41), ""])("refuses %p", (key) => expect(isValidProjectKey(key)).toBe(false));
});
