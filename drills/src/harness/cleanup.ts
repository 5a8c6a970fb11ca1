import { say } from "./time";

type Cleanup = () => Promise<void> | void;

const cleanups: { what: string; run: Cleanup }[] = [];

/**
 * Registers something to undo (a child, a temporary directory, an engine) and returns its
 * release. Whatever is still registered at the end of the run, on failure or on SIGINT, is
 * undone newest first, so nothing the drills started outlives them.
 */
export function onCleanup(what: string, run: Cleanup): () => void {
  const entry = { what, run };
  cleanups.push(entry);
  return () => {
    const index = cleanups.indexOf(entry);
    if (index >= 0) cleanups.splice(index, 1);
  };
}

export async function cleanUpAll(): Promise<void> {
  while (cleanups.length > 0) {
    const { what, run } = cleanups.pop()!;
    try {
      await run();
    } catch (error) {
      say(`clean-up of ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** How long the clean-up after a signal may take before the process exits all the same. */
const CLEAN_UP_DEADLINE_MS = 60_000;

/**
 * SIGINT / SIGTERM: undo everything, then exit 130. Later signals are ignored while that runs:
 * Ctrl-C reaches this process twice under `pnpm drills` (from the terminal and relayed by tsx),
 * and exiting on the second would orphan the engines. The clean-up has a deadline of its own.
 */
export function cleanUpOnSignals(): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping every child and removing temporary directories`);
    setTimeout(() => process.exit(130), CLEAN_UP_DEADLINE_MS).unref();
    void cleanUpAll().finally(() => process.exit(130));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
