import { runWhenDue } from "./periodic";

/** A run that records when it ran and answers with the next due time it is given. */
function recordingRun(answers: (number | null | Error)[]) {
  const ranAt: number[] = [];
  const run = async () => {
    ranAt.push(Date.now());
    const answer = answers.shift() ?? null;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { ranAt, run };
}

describe("runWhenDue", () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it("runs at once, then when the run says its next work is due, never later than the backstop", async () => {
    const { ranAt, run } = recordingRun([2_000, null, 90_000]);
    const loop = runWhenDue(run, { maxSleepMs: 60_000, retryMs: 1_000, onError: () => undefined });
    await jest.advanceTimersByTimeAsync(200_000);
    await loop.stop();
    // Due in 2 s; nothing known (the backstop, 60 s); due in 90 s (the backstop again); then nothing.
    expect(ranAt.slice(0, 4)).toEqual([0, 2_000, 62_000, 122_000]);
  });

  it("runs at once on a kick, and once more after the run a kick came during", async () => {
    let release!: () => void;
    const ranAt: number[] = [];
    const loop = runWhenDue(
      async () => {
        ranAt.push(Date.now());
        if (ranAt.length === 2) await new Promise<void>((resolve) => (release = resolve));
        return null;
      },
      { maxSleepMs: 60_000, retryMs: 1_000, onError: () => undefined },
    );
    await jest.advanceTimersByTimeAsync(5_000);
    loop.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(ranAt).toEqual([0, 5_000]);
    loop.kick();
    loop.kick();
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(ranAt).toEqual([0, 5_000, 5_000]);
    await jest.advanceTimersByTimeAsync(59_999);
    expect(ranAt).toHaveLength(3);
    await loop.stop();
  });

  it("reports a failed run and tries again after retryMs", async () => {
    const errors: unknown[] = [];
    const { ranAt, run } = recordingRun([new Error("engine down"), 30_000]);
    const loop = runWhenDue(run, { maxSleepMs: 60_000, retryMs: 1_000, onError: (error) => errors.push(error) });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ranAt).toEqual([0, 1_000]);
    expect(errors).toEqual([new Error("engine down")]);
    await loop.stop();
  });

  it("runs nothing after stop, kicked or due", async () => {
    const { ranAt, run } = recordingRun([0]);
    const loop = runWhenDue(run, { maxSleepMs: 60_000, retryMs: 1_000, onError: () => undefined });
    await loop.stop();
    loop.kick();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(ranAt).toEqual([0]);
  });
});
