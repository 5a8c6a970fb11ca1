/**
 * Runs `run` now and then every `everyMs` in this process, one run at a time (a tick while the
 * last run is busy is skipped), until `stop`, which waits for the run in progress. A failed run
 * goes to `onError`; the next tick tries again.
 */
export function runPeriodically(everyMs: number, run: () => Promise<unknown>, onError: (error: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = run()
      .catch(onError)
      .finally(() => (busy = false));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** What {@link runWhenDue} returns: a loop that can be woken early, and stopped. */
export interface DueLoop {
  /** Runs at once, or right after the run in progress: something it looks for may be due now. */
  kick(): void;
  /** Stops the loop; waits for the run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `run` now and again when its work is due, one run at a time, until `stop`: each run
 * answers in how many milliseconds its next work is due (null when none is known), and the
 * loop sleeps that long but at most `maxSleepMs`, the backstop for work it was not told of.
 * `kick` wakes it early (a kick during a run runs it once more after). A failed run goes to
 * `onError` and the next one comes after `retryMs`. Written here rather than with a scheduler
 * library: a timer re-armed from each run's answer is the whole of it, and an idle process
 * then wakes only when there is work (runPeriodically wakes every period whatever).
 */
export function runWhenDue(
  run: () => Promise<number | null>,
  options: { maxSleepMs: number; retryMs: number; onError: (error: unknown) => void },
): DueLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const arm = (ms: number) => {
    timer = setTimeout(tick, Math.min(Math.max(ms, 0), options.maxSleepMs));
    timer.unref();
  };
  function tick(): void {
    clearTimeout(timer);
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = run().then(
      (dueInMs) => ({ ms: dueInMs ?? options.maxSleepMs }),
      (error: unknown) => {
        options.onError(error);
        return { ms: options.retryMs };
      },
    ).then(({ ms }) => {
      running = undefined;
      if (stopped) return;
      if (again) {
        again = false;
        return tick();
      }
      arm(ms);
    });
  }
  tick();
  return {
    kick: tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
