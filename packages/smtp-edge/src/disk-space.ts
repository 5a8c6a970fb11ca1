import { statfsSync } from "node:fs";
import { REPLY } from "./smtp-reply";

/** Where the edge's durable writes land on this machine's disk, and how much of it must stay free. */
export interface DiskGuard {
  /** MAILSTOP_DATA_DIR: PGlite's files and the directory object store. */
  path: string;
  /** MAILSTOP_MIN_FREE_DISK_MB in bytes; 0 turns the check off. */
  minFreeBytes: number;
}

/** Bytes an unprivileged writer may still use on the file system of `path`; null when it cannot be read. */
export function freeBytesOf(path: string): number | null {
  try {
    const stats = statfsSync(path);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/**
 * Refuses a transaction of `size` bytes with `452 4.3.1` before anything is written when it
 * would leave less than the guard's minimum free. On the embedded monolith the ledger row and
 * the raw source share one disk with PGlite, whose WAL takes 16 MiB at a time: mail that would
 * fill it is refused while the disk still has room for the database to work (and for reads).
 * One statfs per transaction, a few microseconds.
 */
export function assertRoomFor(guard: DiskGuard | undefined, size: number): void {
  if (!hasRoomFor(guard, size)) throw REPLY.insufficientStorage();
}

/** False when a transaction of `size` bytes would be refused for want of space (the edge's readiness asks with 0). */
export function hasRoomFor(guard: DiskGuard | undefined, size: number): boolean {
  if (guard === undefined || guard.minFreeBytes === 0) return true;
  const free = freeBytesOf(guard.path);
  return free === null || free >= guard.minFreeBytes + size;
}

/**
 * True when a failed durable write failed for want of space: ENOSPC (or EDQUOT) from the
 * directory object store, or PostgreSQL's disk_full (SQLSTATE 53100) from PGlite. The sender
 * then hears 452 4.3.1, as RFC 3463 says of insufficient system storage, rather than 451.
 */
export function isOutOfSpace(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== null && typeof cause === "object" && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === "53100") return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
