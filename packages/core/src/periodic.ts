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
