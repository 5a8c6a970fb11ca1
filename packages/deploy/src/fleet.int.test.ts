import { existsSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  TEST_ADMIN_TOKEN,
  TEST_SECRETS_KEY,
  TestEventStream,
  type TestS3,
  createFreshDatabase,
  dropDatabase,
  eventually,
  rawRequest,
  runDatabaseUrl,
  runRedisUrl,
  runServerUrl,
  smtpTransport,
  startTestS3,
  uniqueProjectKey,
  uniqueRedisPrefix,
  uniqueTag,
} from "@mailstop/testkit";
import { S3BlobStore } from "@mailstop/blob-store";
import { type Fleet, mailstopBin, serveNodeFlags, startFleet } from "./fleet";
import { FLEET_SERVICES } from "./fleet-services";
import { freePort } from "./probes";
import { describeWithTool } from "./tools";

/** Access-log lines of one fleet process for `path` (the access log never logs the query). */
const requestsFor = (fleet: Fleet, name: string, path: string) =>
  fleet
    .logs(name)
    .split("\n")
    .filter((line) => line.includes('"msg":"request"') && line.includes(`"path":"${path}"`));

describeWithTool("nginx", "startFleet: the split fleet behind nginx", () => {
  let fleet: Fleet;
  let s3: TestS3;
  let database: { name: string; url: string };
  let apiKey: string;
  let listen: { http: number; smtp: number; capture: number };
  const auth = () => ({ authorization: `Bearer ${apiKey}`, "content-type": "application/json" });

  beforeAll(async () => {
    database = await createFreshDatabase(runServerUrl(), "mailstop_fleet");
    s3 = await startTestS3();
    // The bucket exists before the services start, as compose's `bucket` one-shot makes it:
    // four services creating it at once race (s3rver answers BucketAlreadyExists to the losers).
    await new S3BlobStore(s3.settings).ensureReady();
    listen = { http: await freePort(), smtp: await freePort(), capture: await freePort() };
    fleet = await startFleet({
      listen,
      env: {
        DATABASE_URL: database.url,
        REDIS_URL: runRedisUrl(),
        MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(),
        MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY,
        MAILSTOP_HEARTBEAT_S: "1",
        ...s3.env,
      },
      // Two parsers, as in compose and Kubernetes: parse jobs shared over BullMQ by two processes.
      replicas: { parser: 2 },
      startTimeoutMs: 120_000,
    });
    const bootstrap = await rawRequest(fleet.url, "POST", "/admin/v1/bootstrap", {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ project_key: uniqueProjectKey("fleet") }),
    });
    if (bootstrap.status !== 201) throw new Error(`bootstrap through the edge: ${bootstrap.status} ${bootstrap.text}`);
    apiKey = bootstrap.json.api_key;
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
    await s3?.stop();
    if (database !== undefined) await dropDatabase(runServerUrl(), database.name);
  }, 60_000);

  async function createInbox(): Promise<{ id: string; address: string }> {
    const created = await rawRequest(fleet.url, "POST", "/v1/inboxes", { headers: auth(), body: JSON.stringify({ tag: uniqueTag("fleet") }) });
    expect(created.status).toBe(201);
    return created.json;
  }

  it("runs every service as its own process, with the table's command", () => {
    expect(fleet.processes.map((p) => p.name)).toEqual(["api", "waiter", "smtp-edge", "parser-1", "parser-2", "nginx"]);
    expect(new Set(fleet.processes.map((p) => p.pid)).size).toBe(6);
    for (const child of fleet.processes.filter((p) => p.service !== "nginx")) {
      const service = FLEET_SERVICES.find((s) => s.name === child.service)!;
      expect(child.command).toEqual([process.execPath, ...serveNodeFlags(), mailstopBin(), ...service.args]);
      // What the kernel says the child runs, not only what the fleet meant to run (Linux).
      if (existsSync("/proc/self/cmdline")) expect(readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0").filter(Boolean)).toEqual(child.command);
    }
  });

  it("listens on the ports it is given: the edge, the receiving edge and the capture relay", () => {
    expect(fleet.url).toBe(`http://127.0.0.1:${listen.http}`);
    expect(fleet.smtp).toEqual({ receiving: listen.smtp, capture: listen.capture });
  });

  it("answers a body over the edge's limit with mailstop's envelope, not nginx's page", async () => {
    const tooLarge = await rawRequest(fleet.url, "POST", "/v1/inboxes", { headers: auth(), body: "x".repeat(9 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("content-type")).toBe("application/json");
    expect(tooLarge.json).toEqual({ error: { code: "payload_too_large", reason: expect.any(String), retryable: false, details: { source: "edge" } } });
    // Under the edge's limit and over the api's own (1 MB), the api answers, in the same envelope.
    const overApiLimit = await rawRequest(fleet.url, "POST", "/v1/inboxes", { headers: auth(), body: JSON.stringify({ tag: "x".repeat(2 * 1024 * 1024) }) });
    expect(overApiLimit.status).toBe(413);
    expect(overApiLimit.json.error).toMatchObject({ code: "payload_too_large", retryable: false });
    expect(overApiLimit.json.error.details).toBeUndefined();
  });

  it("sends ordinary routes to the api, and the api alone", async () => {
    const inbox = await createInbox();
    const read = await rawRequest(fleet.url, "GET", `/v1/inboxes/${inbox.id}`, { headers: auth() });
    expect(read.status).toBe(200);
    expect(read.headers.get("x-accel-buffering")).toBeNull();
    // The access-log line is written as the response finishes: wait for it, with a deadline.
    await eventually(async () => (requestsFor(fleet, "api", `/v1/inboxes/${inbox.id}`).length === 1 ? true : null), { what: "the api's access-log line" });
    expect(requestsFor(fleet, "waiter", `/v1/inboxes/${inbox.id}`)).toHaveLength(0);
    // The waiter does not serve it: the edge's routing is what makes it answer.
    const waiter = fleet.processes.find((p) => p.name === "waiter")!;
    expect((await rawRequest(waiter.httpUrl!, "GET", `/v1/inboxes/${inbox.id}`, { headers: auth() })).status).toBe(404);
  });

  it("sends POST /v1/messages/wait to the waiter and holds it for 5 s without nginx cutting it", async () => {
    const inbox = await createInbox();
    const before = requestsFor(fleet, "waiter", "/v1/messages/wait").length;
    const started = Date.now();
    const wait = await rawRequest(fleet.url, "POST", "/v1/messages/wait", { headers: auth(), body: JSON.stringify({ inbox: inbox.id, timeout_ms: 5000 }) });
    expect(wait.status).toBe(200);
    expect(wait.json).toMatchObject({ status: "timeout", inbox: inbox.address });
    expect(wait.json.waited_ms).toBeGreaterThanOrEqual(5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    // Set by the edge's long-lived location only.
    expect(wait.headers.get("x-accel-buffering")).toBe("no");
    await eventually(async () => (requestsFor(fleet, "waiter", "/v1/messages/wait").length > before ? true : null), { what: "the waiter's access-log line" });
    expect(requestsFor(fleet, "api", "/v1/messages/wait")).toHaveLength(0);
  }, 20_000);

  it("carries mail from the SMTP edge through the parser to a wait and an event stream on the edge", async () => {
    const inbox = await createInbox();
    const stream = new TestEventStream(`${fleet.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${apiKey}` } });
    try {
      expect((await stream.next("open")).data).toMatchObject({ inbox: inbox.id });
      const subject = `Fleet ${uniqueTag("subject")}`;
      const wait = rawRequest(fleet.url, "POST", "/v1/messages/wait", {
        headers: auth(),
        body: JSON.stringify({ inbox: inbox.address, match: { subject_contains: subject }, timeout_ms: 20_000 }),
      });
      await smtpTransport(fleet.smtp.receiving).sendMail({ from: "noreply@acme.example", to: inbox.address, subject, text: "Your code is 551903" });
      const { status, json } = await wait;
      expect(status).toBe(200);
      expect(json).toMatchObject({ status: "matched", message: { subject, codes: ["551903"] } });
      const frame = await stream.until((frames) => frames.find((f) => f.event === "message" && f.data.subject === subject), 10_000, "the message frame");
      expect(frame.data).toMatchObject({ subject, inbox_id: inbox.id });
    } finally {
      stream.close();
    }
  }, 30_000);

  it("stops every child and removes its directory", async () => {
    const pids = fleet.processes.map((p) => p.pid!);
    expect(existsSync(fleet.directory)).toBe(true);
    await fleet.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(existsSync(fleet.directory)).toBe(false);
  }, 30_000);
});

describeWithTool("nginx", "startFleet when a service cannot start", () => {
  it("fails with the failing child's own words, and leaves nothing running", async () => {
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("mailstop-fleet-")));
    // No REDIS_URL, S3_ENDPOINT nor MAILSTOP_SECRETS_KEY: every service refuses to start for an
    // engine (the api for Redis, where its rate limits live), each naming what it misses.
    const started = startFleet({ env: { DATABASE_URL: runDatabaseUrl() }, migrate: false, startTimeoutMs: 60_000 });
    await expect(started).rejects.toThrow(/(api|waiter|smtp-edge|parser) exited with code 1 while the fleet started:\nmailstop: \S+ failed to start: .*(REDIS_URL|S3_ENDPOINT|MAILSTOP_SECRETS_KEY)/);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith("mailstop-fleet-") && !before.has(name));
    expect(after).toEqual([]);
  }, 90_000);

  it("fails when migrations cannot run", async () => {
    await expect(startFleet({ env: {}, startTimeoutMs: 60_000 })).rejects.toThrow(/mailstop migrate exited with code 1:[\s\S]*DATABASE_URL/);
  }, 90_000);
});
