import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import {
  SmtpDialogue,
  toldBeforeClose,
  type TcpProxy,
  type TestRedis,
  type TestS3,
  type TestServer,
  TEST_SECRETS_KEY,
  eventually,
  freePort,
  runDatabaseUrl,
  runRedisUrl,
  scrapeMetrics,
  startTcpProxy,
  startTestRedis,
  startTestS3,
  startTestServer,
  uniqueRedisPrefix,
  uniqueTag,
} from "@mailstop/testkit";

// /ready of every split target (on the operations listener of smtp-edge and parser, on the HTTP
// listener of api and waiter), against engines
// this file owns: the run's database behind a proxy it cuts (the shared PostgreSQL is never
// stopped), and a redis-server of its own that it kills and starts again.

const ROOT = join(__dirname, "../../..");

interface Readiness {
  status: number;
  notReady: string[];
}

async function readiness(port: number): Promise<Readiness> {
  const response = await fetch(`http://127.0.0.1:${port}/ready`);
  const body = (await response.json()) as { error?: { details?: { not_ready?: string[] } } };
  return { status: response.status, notReady: body.error?.details?.not_ready ?? [] };
}

/** Waits until /ready answers `status` (naming `module` when 503). */
function readinessBecomes(port: number, status: 200 | 503, module?: string): Promise<Readiness> {
  return eventually(
    async () => {
      const answer = await readiness(port);
      return answer.status === status && (module === undefined || answer.notReady.includes(module)) ? answer : null;
    },
    { timeoutMs: 20_000, what: `/ready to answer ${status}${module === undefined ? "" : ` naming ${module}`}` },
  );
}

function throughProxy(proxy: TcpProxy): string {
  const url = new URL(runDatabaseUrl());
  url.host = `127.0.0.1:${proxy.port}`;
  return url.toString();
}

describe.each(["smtp-edge", "parser", "api", "waiter"] as const)("/ready of the %s target", (target) => {
  let proxy: TcpProxy;
  let redis: TestRedis;
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(runDatabaseUrl()).port || 5432));
    redis = await startTestRedis();
    server = await startTestServer({ target, mail: true, databaseUrl: throughProxy(proxy), env: { REDIS_URL: redis.url, MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix() } });
    const { opsAddress, httpAddress } = server.running.context;
    port = (opsAddress ?? httpAddress)!.port;
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.kill();
    await proxy?.close();
  });

  it("answers 200 with its engines up, and /health and /metrics on the same listener", async () => {
    expect(await readiness(port)).toEqual({ status: 200, notReady: [] });
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const families = await scrapeMetrics(`http://127.0.0.1:${port}/metrics`);
    expect(families.map((f) => f.name)).toEqual(expect.arrayContaining(["process_cpu_user_seconds_total", "mailstop_http_requests_total", "mailstop_smtp_sessions_total"]));
    const unknown = await fetch(`http://127.0.0.1:${port}/nothing`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
  });

  it("turns 503 naming the database while PostgreSQL cannot be reached, and 200 once it is back", async () => {
    proxy.sever();
    try {
      await readinessBecomes(port, 503, "database");
    } finally {
      proxy.mend();
    }
    await readinessBecomes(port, 200);
  });

  it("turns 503 within its deadline while PostgreSQL accepts and never answers", async () => {
    proxy.freeze();
    try {
      const started = Date.now();
      expect(await readiness(port)).toMatchObject({ status: 503, notReady: expect.arrayContaining(["database"]) });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      proxy.thaw();
    }
    await readinessBecomes(port, 200);
  });

  it("turns 503 naming messaging while Redis is down, and 200 once it is back", async () => {
    await redis.kill();
    try {
      await readinessBecomes(port, 503, "messaging");
    } finally {
      await redis.restart();
    }
    await readinessBecomes(port, 200);
  });
});

describe("SIGTERM on an smtp-edge process", () => {
  let api: TestServer;
  let s3: TestS3;
  let edge: ChildProcess | undefined;

  beforeAll(async () => {
    s3 = await startTestS3();
    api = await startTestServer({ target: "api", s3 });
  });
  afterAll(async () => {
    if (edge !== undefined && edge.exitCode === null && edge.signalCode === null) edge.kill("SIGKILL");
    await api?.stop();
    await s3?.stop();
  });

  it("answers /ready 503 (stopping) while its SMTP listeners still answer, then finishes the transaction in DATA and exits 0", async () => {
    const project = await api.bootstrap();
    const created = await fetch(`${api.url}/v1/inboxes`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tag: uniqueTag("ready") }),
    });
    const inbox = (await created.json()) as { address: string };
    const [smtp, capture, ops] = [await freePort(), await freePort(), await freePort()];
    const child = spawn(process.execPath, ["packages/cli/bin/mailstop.cjs", "serve", "--target", "smtp-edge"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        ...s3.env,
        DATABASE_URL: runDatabaseUrl(),
        REDIS_URL: runRedisUrl(),
        MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(),
        MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY,
        MAILSTOP_SMTP_PORT: String(smtp),
        MAILSTOP_CAPTURE_PORT: String(capture),
        MAILSTOP_OPS_PORT: String(ops),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    edge = child;
    const output: string[] = [];
    child.stdout!.on("data", (chunk) => output.push(String(chunk)));
    child.stderr!.on("data", (chunk) => output.push(String(chunk)));
    await eventually(
      () =>
        readiness(ops).then(
          (answer) => (answer.status === 200 ? true : null),
          () => (child.exitCode === null ? null : Promise.reject(new Error(output.join("")))),
        ),
      { timeoutMs: 60_000, what: "the smtp-edge process to be ready" },
    );

    const { dialogue } = await SmtpDialogue.open(smtp);
    expect((await dialogue.command("EHLO client.example")).code).toBe(250);
    expect((await dialogue.command("MAIL FROM:<app@example.com>")).code).toBe(250);
    expect((await dialogue.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
    expect((await dialogue.command("DATA")).code).toBe(354);
    dialogue.write("From: app@example.com\r\nSubject: Ready during shutdown\r\n\r\nThe first half");

    child.kill("SIGTERM");
    expect(await readinessBecomes(ops, 503, "stopping")).toEqual({ status: 503, notReady: ["stopping"] });
    // Not ready, and the listeners are still open: a new sender is told to retry (421), not refused.
    expect(await toldBeforeClose(smtp, 20_000)).toMatch(/^421 4\.3\.2 /);
    dialogue.write(" and the second half.\r\n.\r\n");
    expect((await dialogue.read()).code).toBe(250);
    dialogue.close();
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  }, 120_000);
});
