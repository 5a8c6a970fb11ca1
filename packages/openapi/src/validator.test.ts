import { MailstopError } from "@mailstop/core";
import { adminDocument, publicDocument } from "./document";
import { buildValidators } from "./validator";

const validators = buildValidators(publicDocument());

function validate(operationId: string, parts: { body?: unknown; query?: Record<string, unknown>; params?: Record<string, string> }) {
  const validator = validators.get(operationId);
  if (!validator) throw new Error(`no operation ${operationId}`);
  return validator.validate({ body: parts.body, query: parts.query ?? {}, params: parts.params ?? {} });
}

function issues(operationId: string, parts: Parameters<typeof validate>[1]) {
  try {
    validate(operationId, parts);
  } catch (error) {
    if (error instanceof MailstopError && error.code === "invalid_request") return (error.details as { errors: unknown[] }).errors;
    throw error;
  }
  throw new Error("expected invalid_request");
}

describe("request validation derived from the OpenAPI document", () => {
  it("has a validator for every operation, each of which compiles (when prepared: a process compiles its routes' in the background after start-up, or on a first request that comes sooner)", () => {
    expect(validators.size).toBeGreaterThanOrEqual(37);
    for (const validator of validators.values()) expect(() => validator.prepare()).not.toThrow();
    const admin = buildValidators(adminDocument());
    expect(admin.size).toBeGreaterThan(5);
    for (const validator of admin.values()) expect(() => validator.prepare()).not.toThrow();
  });

  describe("POST /v1/messages/wait", () => {
    it("applies the document's defaults", () => {
      const { body } = validate("waitForMessage", { body: { inbox: "a@b.c" } });
      expect(body).toEqual({ inbox: "a@b.c", timeout_ms: 120000, preview_chars: 2000 });
    });

    it("rejects timeout_ms above 285000 rather than clamping it", () => {
      expect(issues("waitForMessage", { body: { inbox: "a@b.c", timeout_ms: 285001 } })).toEqual([
        { in: "body", path: "/timeout_ms", message: expect.stringContaining("285000") },
      ]);
      expect(validate("waitForMessage", { body: { inbox: "a@b.c", timeout_ms: 285000 } }).body.timeout_ms).toBe(285000);
      expect(issues("waitForMessage", { body: { inbox: "a@b.c", timeout_ms: 0 } })).toHaveLength(1);
    });

    it("clamps preview_chars at 100000 instead of refusing it", () => {
      expect(validate("waitForMessage", { body: { inbox: "a@b.c", preview_chars: 500000 } }).body.preview_chars).toBe(100000);
      expect(issues("waitForMessage", { body: { inbox: "a@b.c", preview_chars: 0 } })).toHaveLength(1);
    });

    it("allows only the documented match fields, and lists every failure", () => {
      const found = issues("waitForMessage", { body: { inbox: "a@b.c", match: { subject: "x", correlation_id: "-bad" }, extra: 1 } });
      expect(found).toEqual(
        expect.arrayContaining([
          { in: "body", path: "/extra", message: "is not an allowed property" },
          { in: "body", path: "/match/subject", message: "is not an allowed property" },
          expect.objectContaining({ in: "body", path: "/match/correlation_id" }),
        ]),
      );
    });

    it("does not coerce body types", () => {
      expect(issues("waitForMessage", { body: { inbox: "a@b.c", timeout_ms: "1000" } })).toEqual([expect.objectContaining({ path: "/timeout_ms" })]);
    });

    it("needs a body", () => {
      expect(issues("waitForMessage", {})).toEqual([{ in: "body", path: "/", message: "a JSON body is required" }]);
    });
  });

  describe("GET /v1/messages/{id} query", () => {
    it("accepts format repeated or comma-separated", () => {
      expect(validate("getMessage", { params: { id: "msg_x" }, query: { format: "html,raw" } }).query.format).toEqual(["html", "raw"]);
      expect(validate("getMessage", { params: { id: "msg_x" }, query: { format: ["html", "headers"] } }).query.format).toEqual(["html", "headers"]);
      expect(issues("getMessage", { params: { id: "msg_x" }, query: { format: "html,pdf" } })).toEqual([expect.objectContaining({ in: "query" })]);
    });

    it("clamps preview_chars at 100000 although the route declares that maximum", () => {
      expect(validate("getMessage", { params: { id: "msg_x" }, query: { preview_chars: "250000" } }).query.preview_chars).toBe(100000);
      expect(validate("getMessage", { params: { id: "msg_x" }, query: {} }).query.preview_chars).toBe(2000);
    });
  });

  describe("GET /v1/inboxes query", () => {
    it("coerces and bounds limit", () => {
      expect(validate("listInboxes", { query: { limit: "7" } }).query.limit).toBe(7);
      expect(validate("listInboxes", { query: {} }).query.limit).toBe(50);
      for (const limit of ["0", "201", "abc", "1.5"]) {
        expect(issues("listInboxes", { query: { limit } })).toEqual([expect.objectContaining({ in: "query", path: "/limit" })]);
      }
    });

    it("refuses a limit that is no finite decimal number, which JavaScript's Number() would read", () => {
      for (const limit of ["Infinity", "-Infinity", "1e400", "0x10", "0b11", " 5", ""]) {
        expect(issues("listInboxes", { query: { limit } })).toEqual([{ in: "query", path: "/limit", message: "must be a finite decimal number" }]);
      }
      expect(validate("listInboxes", { query: { limit: "1e2" } }).query.limit).toBe(100);
    });

    it("ignores query parameters the route does not declare", () => {
      expect(validate("listInboxes", { query: { _: "cache-buster" } }).query._).toBe("cache-buster");
    });
  });

  describe("POST /v1/fixtures/ensure", () => {
    const fixture = { name: "signup", retention_seconds: 3600 };
    it("refuses a manifest version other than 1 and an empty or oversized manifest", () => {
      expect(issues("ensureFixtures", { body: { run_id: "r1", manifest: { version: 2, fixtures: [fixture] } } })).toEqual([
        expect.objectContaining({ path: "/manifest/version" }),
      ]);
      expect(issues("ensureFixtures", { body: { run_id: "r1", manifest: { version: 1, fixtures: [] } } })).toHaveLength(1);
      const many = Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, retention_seconds: 60 }));
      expect(issues("ensureFixtures", { body: { run_id: "r1", manifest: { version: 1, fixtures: many } } })).toHaveLength(1);
    });

    it("refuses other properties anywhere", () => {
      expect(issues("ensureFixtures", { body: { run_id: "r1", manifest: { version: 1, fixtures: [{ ...fixture, colour: "red" }] } } })).toEqual([
        { in: "body", path: "/manifest/fixtures/0/colour", message: "is not an allowed property" },
      ]);
    });
  });
});
