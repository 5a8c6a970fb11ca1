import type { CredentialChange, CredentialChangeListener } from "./index";

// Test helpers of the messaging suites: bounded waits for what an adapter tells, and a
// credential listener that records it.

/** Resolves with the next value pushed, or rejects after `ms`. */
export function deadline<T>(ms: number, register: (resolve: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Polls `probe` until it returns a value, for at most `ms`. */
export function polled<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  return deadline(ms, (resolve) => {
    const poll = async () => {
      const value = await probe();
      if (value !== undefined) resolve(value);
      else setTimeout(() => void poll(), 20);
    };
    void poll();
  });
}

/** A credential listener that records what it is told, in order. */
export function recordingListener(): CredentialChangeListener & { told: (CredentialChange | "lost" | "resumed")[]; next(ms: number): Promise<CredentialChange | "lost" | "resumed"> } {
  const told: (CredentialChange | "lost" | "resumed")[] = [];
  let waiting: ((value: CredentialChange | "lost" | "resumed") => void) | undefined;
  const tell = (value: CredentialChange | "lost" | "resumed") => {
    told.push(value);
    waiting?.(value);
    waiting = undefined;
  };
  return {
    told,
    changed: (change) => tell(change),
    lost: () => tell("lost"),
    resumed: () => tell("resumed"),
    next: (ms) => deadline(ms, (resolve) => (waiting = resolve)),
  };
}
