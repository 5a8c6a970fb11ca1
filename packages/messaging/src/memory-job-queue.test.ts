import { createLogger } from "@mailstop/logging";
import { MemoryJobQueue, startMemoryWorker } from "./memory-job-queue";
import { parseJobOf } from "./parse-job.fixture";
import { SplitJobQueue } from "./split-job-queue";

// The memory queue's own rules beside the JobQueue contract (messaging.contract.int.test.ts
// runs that on it): how its worker takes a backlog, and how the split routes past its limit.

const logger = createLogger({ level: "silent" });

const job = parseJobOf;

describe("the memory job queue's worker", () => {
  it("never runs a handler inside the caller of enqueue (the SMTP edge before its 250)", async () => {
    const queue = new MemoryJobQueue();
    let started = false;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const worker = startMemoryWorker(queue, { "parse-message": async () => ((started = true), finish()) }, { concurrency: 2, logger });
    try {
      const enqueued = queue.enqueue("parse-message", job("tx-sync"), { jobId: "tx-sync" });
      expect(started).toBe(false);
      await enqueued;
      await finished;
      expect(started).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it("runs a backlog of 3,000 jobs each once, oldest first, never more than its concurrency at a time", async () => {
    const queue = new MemoryJobQueue();
    for (let i = 0; i < 3000; i++) await queue.enqueue("parse-message", job(`tx-${i}`), { jobId: `tx-${i}` });
    const ran: string[] = [];
    let running = 0;
    let most = 0;
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (done = resolve));
    const worker = startMemoryWorker(
      queue,
      {
        "parse-message": async (payload) => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
          ran.push(payload.transaction_id);
          if (ran.length === 3000) done();
        },
      },
      { concurrency: 4, logger },
    );
    await all;
    // Lets the last job settle.
    await worker.close();
    expect(new Set(ran).size).toBe(3000);
    expect(ran.slice(0, 4).sort()).toEqual(["tx-0", "tx-1", "tx-2", "tx-3"]);
    expect(most).toBe(4);
    expect(queue.size).toBe(0);
  });
});

describe("the split job queue", () => {
  it("keeps its volatile jobs in memory up to the limit and sends the rest, and every other job, to the durable queue", async () => {
    const memory = new MemoryJobQueue();
    const durable = new MemoryJobQueue();
    const split = new SplitJobQueue(memory, new Set(["parse-message"]), durable, 2);
    for (const id of ["tx-1", "tx-2", "tx-3"]) await split.enqueue("parse-message", job(id), { jobId: id });
    await split.enqueue("deliver-webhook", { webhook_id: "whk_1", event_id: "evt_1" }, { jobId: "evt_1" });
    expect(memory.size).toBe(2);
    expect(durable.size).toBe(2);
    expect(await split.depth("ingest")).toBe(3);
  });
});
