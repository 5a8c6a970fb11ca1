import {
  ERROR_CODES,
  ERROR_TABLE,
  type ErrorCode,
  MailstopError,
  adminNotFound,
  asMailstopError,
  databaseUnavailable,
  notReady,
  restarting,
  toEnvelope,
  unknownRoute,
} from "./errors";

// The table's rows are the contract's (the OpenAPI document's ErrorCode enum, checked against
// this table in packages/openapi); this file checks the rules every row must keep.

/**
 * The client errors that may succeed later unchanged, because what refuses them clears by
 * itself: a domain whose DNS is not yet satisfied (retry after about 60 s) and an organisation
 * limit that pauses ingestion. Every other 4xx needs a different request.
 */
const CLEARS_BY_ITSELF: readonly ErrorCode[] = ["domain_not_verified", "organisation_limit_exceeded"];

const rows = Object.entries(ERROR_TABLE) as [ErrorCode, { status: number; retryable: boolean }][];

describe("error table", () => {
  it("lists its codes as ERROR_CODES, each once", () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERROR_TABLE));
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it.each(rows)("%s is a snake_case code with a client (4xx) or server (5xx) error status", (code, { status }) => {
    expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(600);
  });

  it.each(rows)("%s is retryable exactly when it is a 5xx, a 429, or a client error that clears by itself", (code, { status, retryable }) => {
    expect(retryable).toBe(status >= 500 || status === 429 || CLEARS_BY_ITSELF.includes(code));
  });

  it("answers 404 for exactly the codes named *_not_found", () => {
    for (const [code, { status }] of rows) expect([code, status === 404]).toEqual([code, code.endsWith("_not_found")]);
  });

  it.each(ERROR_CODES)("%s reaches the envelope and the HTTP status through the table alone", (code) => {
    const error = new MailstopError(code, "why");
    expect(error.status).toBe(ERROR_TABLE[code].status);
    expect(toEnvelope(error)).toEqual({ error: { code, reason: "why", retryable: ERROR_TABLE[code].retryable } });
  });
});

describe("MailstopError", () => {
  it("takes status and retryable from the table, never from the throw site", () => {
    const error = new MailstopError("domain_not_verified", "not yet", { retryAfterSeconds: 60, details: { domain: "a.b" } });
    expect(error.status).toBe(409);
    expect(error.retryable).toBe(true);
    expect(toEnvelope(error)).toEqual({
      error: { code: "domain_not_verified", reason: "not yet", retryable: true, details: { domain: "a.b" }, retry_after_seconds: 60 },
    });
  });

  it("omits details and retry_after_seconds when they do not apply", () => {
    expect(toEnvelope(new MailstopError("inbox_not_found", "none"))).toEqual({ error: { code: "inbox_not_found", reason: "none", retryable: false } });
  });

  it("takes no status from its caller: only the named constructors answer with another", () => {
    // @ts-expect-error `status` is not an option.
    expect(new MailstopError("invalid_request", "No route GET /x", { status: 404 }).status).toBe(400);
  });

  it("turns anything else into a retryable internal error that hides the cause", () => {
    const cause = new Error("connection refused to 10.0.0.1 with password hunter2");
    const error = asMailstopError(cause);
    expect(error.code).toBe("internal");
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(toEnvelope(error))).not.toContain("hunter2");
    const known = new MailstopError("conflict", "taken");
    expect(asMailstopError(known)).toBe(known);
  });
});

describe("the named constructors of statuses outside the table", () => {
  it.each([
    ["notReady", notReady(["database", "bus"]), 503, { code: "internal", reason: "Not ready: database, bus.", retryable: true, details: { not_ready: ["database", "bus"] } }],
    ["databaseUnavailable", databaseUnavailable(new Error("ECONNREFUSED")), 503, { code: "internal", reason: "The database is unavailable; retry shortly.", retryable: true, retry_after_seconds: 1 }],
    ["unknownRoute", unknownRoute("GET", "/x"), 404, { code: "invalid_request", reason: "No route GET /x.", retryable: false }],
    [
      "unknownRoute with a reason",
      unknownRoute("GET", "/admin/v1/x", "the admin API is disabled"),
      404,
      { code: "invalid_request", reason: "No route GET /admin/v1/x: the admin API is disabled.", retryable: false },
    ],
    ["adminNotFound", adminNotFound("api key", "key_1"), 404, { code: "invalid_request", reason: "No api key key_1.", retryable: false, details: { api_key_id: "key_1" } }],
    ["restarting", restarting(), 503, { code: "internal", reason: "mailstop is restarting; retry the wait.", retryable: true, retry_after_seconds: 1 }],
  ])("%s answers with its own status and the envelope of its code", (_name, error, status, envelope) => {
    expect(error).toBeInstanceOf(MailstopError);
    expect(error.status).toBe(status);
    expect(toEnvelope(error)).toEqual({ error: envelope });
  });

  it("keep the cause of an unreachable database for the logs, and mark a restart as planned", () => {
    const cause = new Error("ECONNREFUSED");
    expect(databaseUnavailable(cause).cause).toBe(cause);
    expect(restarting().planned).toBe(true);
    expect(unknownRoute("GET", "/x").planned).toBe(false);
  });
});
