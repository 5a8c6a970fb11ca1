import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { SLOT_LEASE } from "@mailstop/messaging";
import { eventually, freePort, runDatabaseUrl, uniqueTag, useTestServer } from "@mailstop/testkit";

const ROOT = join(__dirname, "../../../../..");

describe("a waiter killed with waits held", () => {
  let child: ChildProcess | undefined;
  // Declared before the server's own hooks, so it runs before the server stops.
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const server = useTestServer({ mail: true, project: false });

  const waitOn = (url: string, key: string, body: unknown) =>
    fetch(`${url}/v1/messages/wait`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

  it("gives its concurrency slots back once their leases lapse", async () => {
    const project = await server.bootstrap();
    await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: project.projectId } }, body: { limits: { max_concurrent_waits: 2 } } });
    const inbox = await server.createInbox({ tag: uniqueTag("crash") }, project);

    // A waiter of the fleet in its own process (the CLI's binary loads tsx in process, so SIGKILL kills it).
    const port = await freePort();
    child = spawn(process.execPath, ["packages/cli/bin/mailstop.cjs", "serve", "--target", "waiter"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: runDatabaseUrl(),
        REDIS_URL: server.config.redisUrl!,
        MAILSTOP_REDIS_PREFIX: server.config.redisPrefix,
        MAILSTOP_HTTP_PORT: String(port),
        MAILSTOP_LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    const childUrl = `http://127.0.0.1:${port}`;
    // Ready, not just listening: its database and Redis answer.
    await eventually(() => fetch(`${childUrl}/ready`).then((r) => (r.ok ? true : null), () => null), { timeoutMs: 60_000, what: "the waiter process" });

    const long = { inbox: inbox.id, match: { subject_contains: "never" }, timeout_ms: 120_000 };
    /**
     * A wait held on the child until it is killed. Asked again when refused for now: the probe
     * below holds a slot for 10 ms at a time (429 concurrency_limit), and a new process on a
     * loaded machine can answer its first waits 503 while its subscriber connects.
     */
    const hold = async (): Promise<void> => {
      for (;;) {
        const response = await waitOn(childUrl, project.apiKey, long).catch(() => null);
        if (response === null || !(response.status === 429 || response.status >= 500) || child?.exitCode !== null || child.signalCode !== null) return;
      }
    };
    const held = [hold(), hold()];
    await eventually(
      async () => ((await waitOn(server.url, project.apiKey, { ...long, timeout_ms: 10 })).status === 429 ? true : null),
      // A freshly started process on a loaded machine takes a while to answer its first waits.
      { timeoutMs: 60_000, what: "both slots held by the waiter process" },
    );

    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
    await eventually(
      async () => ((await waitOn(server.url, project.apiKey, { ...long, timeout_ms: 10 })).status === 200 ? true : null),
      { timeoutMs: SLOT_LEASE.ttlMs * 3, what: "the dead waiter's slots to lapse" },
    );
    await Promise.all(held);
  }, 150_000);
});
