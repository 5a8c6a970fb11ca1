import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { newId } from "@mailstop/core";
import { TEST_SECRETS_KEY, type TestServer, eventually, freePort, runDatabaseUrl, runRedisUrl, smtpTransport, startTestS3, startTestServer, uniqueRedisPrefix, uniqueTag } from "@mailstop/testkit";

const ROOT = join(__dirname, "../../..");
const MESSAGES = 40;

/**
 * A parser service in its own process, as the fleet runs it. The CLI's own binary loads tsx in
 * process, so the child is the worker itself and SIGKILL kills it (tsx's CLI would run the code
 * in a grandchild that outlives the kill).
 */
function spawnParser(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["packages/cli/bin/mailstop.cjs", "serve", "--target", "parser"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** What a child printed on stderr, for the failure message. */
function stderrOf(child: ChildProcess): () => string {
  const chunks: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  return () => chunks.join("");
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

describe("a parser killed with messages in flight", () => {
  let api: TestServer;
  let edge: TestServer;
  const parsers: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of parsers) await kill(child);
    await edge?.stop();
    await api?.stop();
  });

  it("leaves, after a restart, every accepted message stored exactly once", async () => {
    const s3 = await startTestS3();
    const shared = {
      ...s3.env,
      REDIS_URL: runRedisUrl(),
      MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(),
      // A crashed parser's jobs come back after 1 s instead of 30.
      MAILSTOP_JOB_LOCK_MS: "1000",
    };
    api = await startTestServer({ target: "api", env: shared });
    edge = await startTestServer({
      target: "smtp-edge",
      s3,
      env: { ...shared, MAILSTOP_SMTP_PORT: String(await freePort()), MAILSTOP_CAPTURE_PORT: String(await freePort()) },
    });
    const project = await api.bootstrap();
    const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("crash") } });
    const parserEnv = { ...shared, DATABASE_URL: runDatabaseUrl(), MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY, MAILSTOP_LOG_LEVEL: "warn" };

    // Every message accepted (250) while no parser runs: all of them are queued.
    const subjects = Array.from({ length: MESSAGES }, (_, i) => `Crash ${i} ${newId("message")}`);
    const transport = smtpTransport(edge.smtp!.receiving, {});
    for (const subject of subjects) {
      const info = await transport.sendMail({ from: "a@b.test", to: inbox!.address, subject, text: subject });
      expect(info.response).toMatch(/^250 /);
    }

    const stored = () => api.db.selectFrom("messages").select(["subject", "raw_key"]).where("inbox_id", "=", inbox!.id).execute();
    // One job at a time, so the first parser is still working when it is killed (the table is
    // looked at every 20 ms; 40 jobs one after the other take far longer): at the default 32
    // it can store all 40 between two looks.
    const first = spawnParser({ ...parserEnv, MAILSTOP_PARSER_CONCURRENCY: "1", MAILSTOP_OPS_PORT: String(await freePort()) });
    parsers.push(first);
    const firstErrors = stderrOf(first);
    await eventually(async () => ((await stored()).length > 0 ? true : null), { timeoutMs: 30_000, what: "the first parser to store something" }).catch((error: Error) => {
      throw new Error(`${error.message}; parser stderr: ${firstErrors()}`);
    });
    await kill(first);
    const atCrash = (await stored()).length;
    expect(atCrash).toBeLessThan(MESSAGES);

    const second = spawnParser({ ...parserEnv, MAILSTOP_OPS_PORT: String(await freePort()) });
    parsers.push(second);
    const secondErrors = stderrOf(second);
    await eventually(async () => ((await stored()).length >= MESSAGES ? true : null), { timeoutMs: 60_000, what: "every message after the restart" }).catch((error: Error) => {
      throw new Error(`${error.message}; stored ${atCrash} before the crash; restarted parser printed: ${secondErrors()}`);
    });
    const rows = await stored();
    expect(rows.map((row) => row.subject).sort()).toEqual([...subjects].sort());
    expect(new Set(rows.map((row) => row.raw_key)).size).toBe(MESSAGES);
    // Counters and meters moved exactly once per message across the crash.
    const counts = await api.db.selectFrom("inboxes").select("message_count").where("id", "=", inbox!.id).executeTakeFirstOrThrow();
    expect(counts.message_count).toBe(MESSAGES);
    const metered = await api.db.selectFrom("usage_counters").select("used").where("project_id", "=", project.projectId).where("metric", "=", "message.received").executeTakeFirstOrThrow();
    expect(Number(metered.used)).toBe(MESSAGES);
  }, 120_000);
});
