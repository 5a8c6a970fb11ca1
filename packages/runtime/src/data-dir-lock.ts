import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** True when a process with this pid exists (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/** MAILSTOP_DATA_DIR is held by a running mailstop: its pid, for a caller to say what to stop. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`MAILSTOP_DATA_DIR ${dataDir} is in use by another mailstop (pid ${pid}); stop it or choose another MAILSTOP_DATA_DIR.`);
  }
}

/**
 * Claims MAILSTOP_DATA_DIR for this process. PGlite is one PostgreSQL in one process: a second
 * mailstop opening the same files would corrupt them, so it is refused with a clear line. A
 * lock left by a process that no longer runs (a crash) is taken over. Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "mailstop.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" });
      return () => {
        try {
          if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    }
    const holder = Number(readFileSync(path, "utf8"));
    if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
      throw new DataDirInUseError(dataDir, holder);
    }
    unlinkSync(path);
  }
  throw new Error(`could not lock MAILSTOP_DATA_DIR ${dataDir}`);
}
