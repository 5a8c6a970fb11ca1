import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SmtpDialogue, toldBeforeClose, TEST_ADMIN_TOKEN, type TestS3, eventually, freePort, runDatabaseUrl, runRedisPrefix, runRedisUrl, startTestS3, testWorld, uniqueProjectKey, uniqueTag } from "@mailstop/testkit";

// SIGTERM on the monolith process, in either world: waits end with a retryable 503 (logged at
// info, not as an error), event streams get `closed`, idle SMTP connections and new ones get
// 421, a transaction already in DATA still gets its 250, the process exits 0, and the message
// it accepted is there after the restart.

const ROOT = join(__dirname, "../../..");
const EXIT_DEADLINE_MS = 40_000;

interface Monolith {
  url: string;
  smtpPort: number;
  process: ChildProcess;
  output: () => string;
}

async function startMonolith(env: Record<string, string>): Promise<Monolith> {
  const [http, smtp, capture] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, ["packages/cli/bin/mailstop.cjs", "serve", "--target", "all"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      MAILSTOP_HTTP_PORT: String(http),
      MAILSTOP_SMTP_PORT: String(smtp),
      MAILSTOP_CAPTURE_PORT: String(capture),
      MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      MAILSTOP_LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: string[] = [];
  child.stdout!.on("data", (chunk) => chunks.push(String(chunk)));
  child.stderr!.on("data", (chunk) => chunks.push(String(chunk)));
  const url = `http://127.0.0.1:${http}`;
  await eventually(() => fetch(`${url}/health`).then((r) => (r.ok ? true : null), () => (child.exitCode === null ? null : Promise.reject(new Error(chunks.join(""))))), {
    timeoutMs: 60_000,
    what: "the monolith to answer /health",
  });
  return { url, smtpPort: smtp, process: child, output: () => chunks.join("") };
}

/** Reads `body` until `done` holds over the text so far, failing after `ms`. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean, ms: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => void reader.cancel(new Error(`no such text within ${ms} ms`)), ms);
  try {
    while (!done(text)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += decoder.decode(value, { stream: true });
    }
    return text;
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const timer = setTimeout(() => child.kill("SIGKILL"), EXIT_DEADLINE_MS);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return code;
}

describe("SIGTERM on the monolith", () => {
  let dataDir: string;
  let s3: TestS3 | undefined;
  let env: Record<string, string>;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "mailstop-sigterm-"));
    env = { MAILSTOP_DATA_DIR: dataDir };
    if (testWorld() === "engines") {
      s3 = await startTestS3();
      env = { ...env, ...s3.env, DATABASE_URL: runDatabaseUrl(), REDIS_URL: runRedisUrl(), MAILSTOP_REDIS_PREFIX: `${runRedisPrefix()}-sigterm` };
    }
  });
  afterAll(async () => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await s3?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("ends waits retryably and streams with closed, refuses new SMTP sessions, finishes the transaction in DATA, exits 0, and keeps the message", async () => {
    const first = await startMonolith(env);
    running.push(first.process);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" };
    const boot: any = await (await fetch(`${first.url}/admin/v1/bootstrap`, { method: "POST", headers: admin, body: JSON.stringify({ project_key: uniqueProjectKey("sig") }) })).json();
    const auth = { authorization: `Bearer ${boot.api_key}`, "content-type": "application/json" };
    const inbox: any = await (await fetch(`${first.url}/v1/inboxes`, { method: "POST", headers: auth, body: JSON.stringify({ tag: uniqueTag("sigterm") }) })).json();
    const waitFor = (url: string, subject: string) =>
      fetch(`${url}/v1/messages/wait`, { method: "POST", headers: auth, body: JSON.stringify({ inbox: inbox.address, match: { subject_contains: subject }, timeout_ms: 60_000 }) });

    const held = waitFor(first.url, "never sent");
    const stream = await fetch(`${first.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: auth.authorization } });
    const streamBody = stream.body!.tee();
    expect(await readUntil(streamBody[0], (text) => text.includes("event: open"), 10_000)).toContain("event: open");
    const { dialogue: sending } = await SmtpDialogue.open(first.smtpPort);
    expect((await sending.command("EHLO client.example")).code).toBe(250);
    expect((await sending.command("MAIL FROM:<app@example.com>")).code).toBe(250);
    expect((await sending.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
    expect((await sending.command("DATA")).code).toBe(354);
    sending.write("From: app@example.com\r\nSubject: Sent during shutdown\r\n\r\nThe first half");
    const { dialogue: idle } = await SmtpDialogue.open(first.smtpPort);
    expect((await idle.command("EHLO idle.example")).code).toBe(250);

    first.process.kill("SIGTERM");
    const ended = await held;
    expect(ended.status).toBe(503);
    expect(ended.headers.get("retry-after")).toBe("1");
    expect(((await ended.json()) as any).error).toEqual({ code: "internal", reason: "mailstop is restarting; retry the wait.", retryable: true, retry_after_seconds: 1 });
    // The open stream is told it is closed (and to reconnect) before it ends.
    const streamed = await readUntil(streamBody[1], (text) => text.includes("event: closed"), EXIT_DEADLINE_MS);
    expect(streamed).toContain('event: closed\ndata: {"reason":"max_duration"}');
    // The idle connection is told to go away; the one in DATA is not.
    expect(await idle.read(EXIT_DEADLINE_MS)).toEqual({ code: 421, text: expect.stringMatching(/^4\.3\.2 /) });
    // A sender connecting while the transaction in DATA finishes is not greeted but told to retry, and closed.
    expect(await toldBeforeClose(first.smtpPort, EXIT_DEADLINE_MS)).toMatch(/^421 4\.3\.2 [^\r]*\r\n$/);
    sending.write(" and the second half.\r\n.\r\n");
    expect((await sending.read()).code).toBe(250);
    expect(await exitOf(first.process)).toBe(0);
    sending.close();
    idle.close();
    // The wait cut by the restart is logged at info without a stack; nothing failed.
    const lines = first.output().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
    const cut = lines.filter((line) => line.msg === "request ended by the server");
    expect(cut).toEqual([expect.objectContaining({ level: 30, code: "internal", reason: "mailstop is restarting; retry the wait.", path: "/v1/messages/wait" })]);
    expect(JSON.stringify(cut)).not.toContain("stack");
    expect(lines.filter((line) => line.msg === "request failed")).toEqual([]);

    const second = await startMonolith(env);
    running.push(second.process);
    try {
      const found = await (await waitFor(second.url, "Sent during shutdown")).json();
      expect(found).toMatchObject({ status: "matched", message: { subject: "Sent during shutdown" } });
    } finally {
      second.process.kill("SIGTERM");
      expect(await exitOf(second.process)).toBe(0);
    }
  }, 150_000);
});
