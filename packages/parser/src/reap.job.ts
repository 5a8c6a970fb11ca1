import { completeBlobDeletions, deleteExpiredStreamTokens, pendingBlobDeletions, reapMessages } from "@mailstop/db";
import type { ParserDeps } from "./deps";

const ROW_BATCH = 500;
const PREFIX_BATCH = 100;

/**
 * The reaper: deletes tombstoned and expired message rows in batches, then removes every
 * queued object prefix from the store, marking each done only once the store has deleted it
 * (a failure leaves it queued for the next run). Expired stream tokens go too.
 */
export function reapJob(deps: ParserDeps) {
  return async (): Promise<void> => {
    let rows = 0;
    for (let batch = ROW_BATCH; batch === ROW_BATCH; rows += batch) batch = await reapMessages(deps.db, ROW_BATCH);
    let prefixes = 0;
    for (let pending = await pendingBlobDeletions(deps.db, PREFIX_BATCH); pending.length > 0; pending = await pendingBlobDeletions(deps.db, PREFIX_BATCH)) {
      for (const prefix of pending) await deps.blobs.deletePrefix(prefix);
      await completeBlobDeletions(deps.db, pending);
      prefixes += pending.length;
    }
    const streamTokens = await deleteExpiredStreamTokens(deps.db);
    if (rows > 0 || prefixes > 0 || streamTokens > 0) deps.logger.info({ rows, prefixes, stream_tokens: streamTokens }, "reaped");
  };
}
