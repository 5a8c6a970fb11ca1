import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { CHANNELS, createRedis } from "@mailstop/messaging";
import {
  type TestProject,
  type TestRedis,
  type TestServer,
  TEST_ADMIN_TOKEN,
  eventually,
  expectError,
  keyRequest,
  rawRequest,
  startTestRedis,
  startTestServer,
  uniqueRedisPrefix,
  useTestServer,
} from "@mailstop/testkit";

// The API-key cache (ApiKeyCache in @mailstop/http, docs/decisions.md "The API-key cache"):
// each process keeps the keys it used, and forgets them when a change is announced on the bus.
// A revoked key, a suspended organisation or changed limits take effect on every instance
// within a second of the admin call's answer; with the bus away, nothing is served from it.
// Real engines in this process only (`.engines.int.test.ts`, see jest.config.js): two api
// instances share PostgreSQL and Redis, a Redis of the file's own is killed, and the database
// is changed behind the API's back.

const PROPAGATION_MS = 1000;
const MISSING_MESSAGE = "msg_00000000000000000000000000";

function admin(on: TestServer, method: string, path: string, body?: unknown) {
  return rawRequest(on.url, method, path, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const check = (on: TestServer, key: string) => keyRequest(on.url, key, "GET", "/v1/auth/check");

/** A key used on `on` often enough to be held by its cache. */
async function warm(on: TestServer, key: string): Promise<void> {
  for (let i = 0; i < 3; i += 1) expect((await check(on, key)).status).toBe(200);
}

/**
 * Calls `probe` until it gives a value, failing unless the call that gave it was sent within
 * `withinMs` of `since` (the admin call's answer): every call sent later must see the change.
 */
async function seenWithin<T>(since: number, withinMs: number, what: string, probe: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const sent = Date.now();
    const value = await probe();
    if (value !== null) return value;
    if (sent - since > withinMs) throw new Error(`${what}: still not seen ${sent - since} ms after the admin call answered`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The first answer of `on` to `key` that is not 200, which must come within a second of `since`. */
async function refusedWithin(on: TestServer, key: string, since: number, what: string) {
  return seenWithin(since, PROPAGATION_MS, what, async () => {
    const outcome = await check(on, key);
    return outcome.status === 200 ? null : outcome;
  });
}

/** Two api instances on this run's PostgreSQL sharing one Redis prefix (or a Redis of their own). */
function twoInstances(redis: () => { url?: string }) {
  const instances: TestServer[] = [];
  beforeAll(async () => {
    const prefix = uniqueRedisPrefix();
    const { url } = redis();
    const env = { MAILSTOP_REDIS_PREFIX: prefix, ...(url === undefined ? {} : { REDIS_URL: url }) };
    instances.push(await startTestServer({ target: "api", env }), await startTestServer({ target: "api", env }));
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances.splice(0)) await instance.stop();
  });
  return { first: () => instances[0]!, second: () => instances[1]! };
}

describe("the API-key cache across two api instances", () => {
  const { first, second } = twoInstances(() => ({}));

  it("refuses a key revoked on one instance on the other within a second of the revoke's answer", async () => {
    const victim = await first().bootstrap();
    await warm(second(), victim.apiKey);
    const revoked = await admin(first(), "DELETE", `/admin/v1/api-keys/${victim.apiKeyId}`);
    const answered = Date.now();
    expect(revoked.status).toBe(200);
    const value = await refusedWithin(second(), victim.apiKey, answered, "the revocation on the second instance");
    expectError(value, { status: 401, code: "invalid_api_key", retryable: false });
    // And on the instance that revoked it, at once.
    expectError(await check(first(), victim.apiKey), { status: 401, code: "invalid_api_key", retryable: false });
  });

  it("applies a suspension and a reinstatement of the organisation on the other instance within a second", async () => {
    const tenant = await first().bootstrap();
    await warm(second(), tenant.apiKey);
    expect((await admin(first(), "PATCH", `/admin/v1/organisations/${tenant.organisationId}`, { suspended: true })).status).toBe(200);
    const suspended = await refusedWithin(second(), tenant.apiKey, Date.now(), "the suspension");
    expectError(suspended, { status: 403, code: "abuse_suspended", retryable: false });

    expect((await admin(first(), "PATCH", `/admin/v1/organisations/${tenant.organisationId}`, { suspended: false })).status).toBe(200);
    await seenWithin(Date.now(), PROPAGATION_MS, "the reinstatement", async () => ((await check(second(), tenant.apiKey)).status === 200 ? true : null));
  });

  it("applies a project's changed limits on the other instance within a second: its rate limit, then a spent allowance and its removal", async () => {
    const project = await first().bootstrap();
    const read = (key: TestProject) => keyRequest(second().url, key.apiKey, "GET", `/v1/messages/${MISSING_MESSAGE}`);
    const before = await read(project);
    expect(before.status).toBe(404);
    await warm(second(), project.apiKey);

    const limit = async (limits: Record<string, number | null>) => {
      const patched = await admin(first(), "PATCH", `/admin/v1/projects/${project.projectId}`, { limits });
      expect(patched.status).toBe(200);
      return Date.now();
    };
    const rateLimited = await limit({ rate_limit_read: 777 });
    // The bucket's size (a burst of twice the rate) moves from the server's default to the project's.
    const bucket = (outcome: { headers: Headers }) => outcome.headers.get("ratelimit-limit");
    await seenWithin(rateLimited, PROPAGATION_MS, "the new rate limit", async () => (bucket(await read(project)) !== bucket(before) ? true : null));
    expect(bucket(await read(project))).toBe(String(2 * 777));

    // An allowance of 0 is spent at once: message reads are refused (before the 404).
    const spent = await limit({ monthly_messages: 0 });
    const refused = await seenWithin(spent, PROPAGATION_MS, "the spent allowance", async () => {
      const outcome = await read(project);
      return outcome.status === 404 ? null : outcome;
    });
    expectError(refused, { status: 402, code: "quota_exceeded", retryable: false });

    const lifted = await limit({ monthly_messages: null });
    await seenWithin(lifted, PROPAGATION_MS, "the lifted allowance", async () => ((await read(project)).status === 404 ? true : null));
  });
});

describe("the API-key cache while the bus is away", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  const { first, second } = twoInstances(() => ({ url: redis.url }));
  // Registered after the instances' own: they stop first, while their Redis still answers.
  afterAll(async () => {
    await redis.kill();
  });

  it("serves nothing from the cache without the bus: a key revoked meanwhile is refused everywhere, and the cache is heard again once Redis is back", async () => {
    const victim = await first().bootstrap();
    const later = await first().bootstrap();
    await warm(second(), victim.apiKey);
    await warm(second(), later.apiKey);

    // Redis dies: the revocation is committed, its announcement reaches no one.
    await redis.kill();
    const revoked = await admin(first(), "DELETE", `/admin/v1/api-keys/${victim.apiKeyId}`);
    const answered = Date.now();
    expect(revoked.status).toBe(200);
    const value = await refusedWithin(second(), victim.apiKey, answered, "the unannounced revocation on the second instance");
    expectError(value, { status: 401, code: "invalid_api_key", retryable: false });
    expect(first().logs()).toContain("credential change not announced");

    // Redis is back: both instances listen again, and announcements reach the second once more.
    await redis.restart();
    const probe = createRedis(redis.url, "command", createLogger({ level: "silent" }));
    try {
      if (probe.status !== "ready") await once(probe, "ready");
      const channel = `${first().config.redisPrefix}:${CHANNELS.credentialChanges}`;
      await eventually(async () => (((await probe.pubsub("NUMSUB", channel)) as [string, number])[1] === 2 ? true : null), {
        timeoutMs: 15_000,
        what: "both instances to subscribe the credential channel again",
      });
    } finally {
      probe.disconnect();
    }
    expect((await check(second(), victim.apiKey)).status).toBe(401);
    await warm(second(), later.apiKey);
    expect((await admin(first(), "DELETE", `/admin/v1/api-keys/${later.apiKeyId}`)).status).toBe(200);
    const afterRestart = await refusedWithin(second(), later.apiKey, Date.now(), "a revocation announced after the restart");
    expectError(afterRestart, { status: 401, code: "invalid_api_key", retryable: false });
  }, 60_000);
});

describe("the API-key cache's lifetime", () => {
  const server = useTestServer({ project: false });

  it("holds a key for at most 5 s: a revocation written straight into the database (announced to no one) is refused once that has passed", async () => {
    const victim = await server.bootstrap();
    await warm(server, victim.apiKey);
    await server.db.updateTable("api_keys").set({ revoked_at: new Date() }).where("id", "=", victim.apiKeyId).execute();
    const written = Date.now();
    // Served from the cache: nobody announced the change.
    expect((await check(server, victim.apiKey)).status).toBe(200);
    const value = await seenWithin(written, 5000 + 500, "the unannounced revocation", async () => {
      const outcome = await check(server, victim.apiKey);
      return outcome.status === 200 ? null : outcome;
    });
    expectError(value, { status: 401, code: "invalid_api_key", retryable: false });
  }, 15_000);
});
