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
 * then wakes only when there is work, where a fixed period wakes it whatever.
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
