import type { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";

/**
 * The object store port: raw sources, decoded parts and attachments. Two adapters sit behind
 * it (S3 through minio, or a directory on the embedded stand-ins), and nothing above it knows
 * which one it has. Every failure of the store itself surfaces as the typed
 * `storage_unavailable` error, so callers can answer 451 (SMTP) or 503 (HTTP).
 */
export interface BlobStore {
  /** Creates the bucket (or directory) when missing. */
  ensureReady(): Promise<void>;
  /** Stores `body` at `key`; resolves only once the object is durable. Overwrites. */
  put(key: string, body: Readable | Buffer, options?: { contentType?: string }): Promise<{ size: number }>;
  /** A copy of `source` at `target`, done by the store itself (no bytes through this process). */
  copy(source: string, target: string): Promise<void>;
  /** The object's bytes, or null when there is no such object. */
  get(key: string): Promise<Readable | null>;
  /** The object's size, or null when there is no such object. */
  stat(key: string): Promise<{ size: number } | null>;
  /** Deletes every object under `prefix` (a folder-like key ending in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * The folder-like prefixes directly under `prefix` (which ends in `/`), each ending in `/`,
   * in ascending order: `projects/<p>/tx/` lists `projects/<p>/tx/<t>/`. Nothing when there are
   * none. (s3rver, the test S3, lists only folders that hold an object directly.)
   */
  listPrefixes(prefix: string): AsyncIterable<string>;
  /** Deletes these objects; missing ones are ignored. */
  delete(keys: readonly string[]): Promise<void>;
  /** A short-lived URL that downloads the object without credentials. */
  presignGet(key: string, ttlSeconds: number, options?: { filename?: string; contentType?: string }): Promise<string>;
}

/** The typed failure of either adapter's store: `storage_unavailable`, retryable. */
export function storageUnavailable(action: string, error: unknown): MailstopError {
  return new MailstopError("storage_unavailable", `The object store could not ${action}; retry shortly.`, { cause: error });
}
