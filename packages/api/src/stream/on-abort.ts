const fanOuts = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `listener` once when `signal` aborts, and returns what forgets it. Like
 * `signal.addEventListener("abort", listener, { once: true })`, except that the signal carries
 * one listener which fans out to a Set: EventTarget.addEventListener walks every listener
 * already added (it skips duplicates), so 10,000 held waits or streams on the process's one
 * shutdown signal each paid for all the others, and holding n of them cost n² steps.
 * Nothing runs for a signal that has already aborted (as with addEventListener).
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let listeners = fanOuts.get(signal);
  if (listeners === undefined) {
    const created = new Set<() => void>();
    listeners = created;
    fanOuts.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        const pending = [...created];
        created.clear();
        for (const run of pending) run();
      },
      { once: true },
    );
  }
  if (signal.aborted) return () => undefined;
  const set = listeners;
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}
