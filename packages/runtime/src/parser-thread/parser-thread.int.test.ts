import { newId } from "@mailstop/core";
import { eventually, metricValue, scrapeMetrics, smtpTransport, uniqueTag, useTestServer } from "@mailstop/testkit";

// The monolith on PostgreSQL and Redis parses on a worker thread of its own (the integration
// world's engines). What must hold: every accepted message stored exactly once, also when the
// thread dies with jobs in hand; the thread restarted; its logs and metrics the process's.
const MESSAGES = 40;

const server = useTestServer({
  mail: true,
  // One job at a time, so the thread still has work when it is killed; a dead thread's
  // claimed jobs come back after 1 s instead of 30.
  env: { MAILSTOP_PARSER_THREAD: "on", MAILSTOP_PARSER_CONCURRENCY: "1", MAILSTOP_JOB_LOCK_MS: "1000" },
});

const storedIn = (inboxId: string) => server.db.selectFrom("messages").select(["subject", "raw_key"]).where("inbox_id", "=", inboxId).execute();

describe("the monolith's parser thread", () => {
  it("runs the parser in the thread's place, and the thread's log lines and job metrics are the process's", async () => {
    expect(server.running.modules).toContain("parser-thread");
    expect(server.running.modules).not.toContain("parser");
    const thread = server.running.context.parserThread!;
    expect(thread.threadId).toEqual(expect.any(Number));
    expect(await server.running.ready()).toBe(true);

    const inbox = await server.createInbox();
    const before = await scrapeMetrics(`${server.url}/metrics`);
    await server.deliver(inbox, { subject: `Metered ${newId("message")}`, text: "hello" });
    await eventually(async () => {
      const after = await scrapeMetrics(`${server.url}/metrics`);
      const completed = (families: typeof after) => metricValue(families, "mailstop_jobs_total", { job: "parse-message", outcome: "completed" });
      return completed(after) > completed(before) && metricValue(after, "mailstop_accept_to_visible_seconds") > metricValue(before, "mailstop_accept_to_visible_seconds") ? true : null;
    }, { what: "the thread's parse to be counted in the process's /metrics" });
    const threadLines = server
      .logs()
      .split("\n")
      .filter((line) => line.includes('"thread":"parser"'));
    expect(threadLines.some((line) => JSON.parse(line).msg === "mailstop started")).toBe(true);
  });

  it("restarts a thread that dies with jobs in hand, and stores every accepted message exactly once", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("thread-crash") });
    const thread = server.running.context.parserThread!;
    const firstThread = thread.threadId;
    const subjects = Array.from({ length: MESSAGES }, (_, i) => `Thread crash ${i} ${newId("message")}`);
    const transport = smtpTransport(server.smtpPort, { pool: true });
    const replies = await Promise.all(subjects.map((subject) => transport.sendMail({ from: "a@b.test", to: inbox.address, subject, text: subject })));
    transport.close();
    for (const reply of replies) expect(reply.response).toMatch(/^250 /);

    await eventually(async () => ((await storedIn(inbox.id)).length > 0 ? true : null), { timeoutMs: 30_000, what: "the thread to store a first message" });
    await thread.kill();
    expect(await server.running.ready()).toBe(false);

    await eventually(async () => (thread.threadId !== null && thread.threadId !== firstThread && (await server.running.ready()) ? true : null), {
      timeoutMs: 30_000,
      what: "a new parser thread, ready",
    });
    await eventually(async () => ((await storedIn(inbox.id)).length >= MESSAGES ? true : null), { timeoutMs: 60_000, what: "every message after the restart" });
    const rows = await storedIn(inbox.id);
    expect(rows.map((row) => row.subject).sort()).toEqual([...subjects].sort());
    expect(new Set(rows.map((row) => row.raw_key)).size).toBe(MESSAGES);
    const counts = await server.db.selectFrom("inboxes").select("message_count").where("id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(counts.message_count).toBe(MESSAGES);
    expect(server.logs()).toContain("the parser thread exited; restarting it");
  }, 120_000);
});
