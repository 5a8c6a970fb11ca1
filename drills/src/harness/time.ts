export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns true, or throws after `timeoutMs`. Every wait of the drills
 * goes through here (or a deadline of its own): a drill must end even when the product hangs.
 */
export async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** `promise`, or a rejection naming `what` after `ms`. */
export function within<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Progress on stderr, so stdout carries only the table. */
export function say(text: string): void {
  const at = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[drills ${at}] ${text}\n`);
}

/** A value for a failure message: JSON, cut short (undefined shown as such). */
export function show(value: unknown, length = 200): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, length);
}
