import { StreamFollower } from "./stream-follower";

/** An inbox of numbered rows; each read takes a tick, and reads are counted. */
function harness(options: { pageSize?: number; emitLimit?: number } = {}) {
  const rows: number[] = [];
  const emitted: number[] = [];
  const reads: string[] = [];
  const failures: unknown[] = [];
  let failNext = false;
  let readsInFlight = 0;
  const pageSize = options.pageSize ?? 100;
  const follower = new StreamFollower<number>("0", {
    read: async (cursor) => {
      reads.push(cursor);
      readsInFlight += 1;
      try {
        await new Promise((resolve) => setImmediate(resolve));
        if (failNext) throw new Error("read failed");
        return rows.filter((row) => row > Number(cursor)).slice(0, pageSize);
      } finally {
        readsInFlight -= 1;
      }
    },
    cursorOf: (row) => String(row),
    emit: async (row) => {
      emitted.push(row);
      return options.emitLimit === undefined || emitted.length < options.emitLimit;
    },
    fail: (error) => failures.push(error),
    pageSize,
  });
  // Settled: no read in flight over two turns of the event loop. A follow-up read starts in
  // the microtasks after the previous one, so it is seen before the next turn; a fixed sleep
  // was not enough on a loaded machine.
  const settle = async () => {
    for (let quietTurns = 0; quietTurns < 2; ) {
      await new Promise((resolve) => setImmediate(resolve));
      quietTurns = readsInFlight === 0 ? quietTurns + 1 : 0;
    }
  };
  return { rows, emitted, reads, failures, follower, settle, failOnNextRead: () => (failNext = true) };
}

describe("StreamFollower", () => {
  it("reads nothing until poked", async () => {
    const h = harness();
    h.rows.push(1, 2);
    await h.settle();
    expect(h.reads).toEqual([]);
  });

  it("emits what came after the cursor, once, in order, and moves the cursor", async () => {
    const h = harness();
    h.rows.push(1, 2);
    h.follower.poke();
    await h.settle();
    h.rows.push(3);
    h.follower.poke();
    await h.settle();
    expect(h.emitted).toEqual([1, 2, 3]);
    expect(h.reads).toEqual(["0", "2"]);
  });

  it("folds pokes that land during a read into one more read: at most one query per arrival, nothing skipped", async () => {
    const h = harness();
    h.rows.push(1);
    h.follower.poke();
    h.rows.push(2, 3, 4);
    h.follower.poke();
    h.follower.poke();
    h.follower.poke();
    await h.settle();
    expect(h.emitted).toEqual([1, 2, 3, 4]);
    // The first read already saw all four; the pokes during it cost one more read, not three.
    expect(h.reads).toEqual(["0", "4"]);
  });

  it("reads a backlog page after page", async () => {
    const h = harness({ pageSize: 2 });
    h.rows.push(1, 2, 3, 4, 5);
    h.follower.poke();
    await h.settle();
    expect(h.emitted).toEqual([1, 2, 3, 4, 5]);
    expect(h.reads).toEqual(["0", "2", "4"]);
  });

  it("stops for good when the stream ends", async () => {
    const h = harness({ emitLimit: 2 });
    h.rows.push(1, 2, 3);
    h.follower.poke();
    await h.settle();
    h.follower.poke();
    await h.settle();
    expect(h.emitted).toEqual([1, 2]);
    expect(h.reads).toEqual(["0"]);
  });

  it("reports a failed read once and stops", async () => {
    const h = harness();
    h.failOnNextRead();
    h.follower.poke();
    await h.settle();
    h.follower.poke();
    await h.settle();
    expect(h.failures).toHaveLength(1);
    expect(h.reads).toEqual(["0"]);
  });
});
