import { blobKeys } from "@mailstop/blob-store";
import { RECONCILE_MIN_AGE_S, transactionTime } from "@mailstop/core";
import { knownTransactions, pruneDoneTransactions } from "@mailstop/db";
import type { ParserDeps } from "./deps";

const CHECK_BATCH = 500;

/** The transaction id of a listed prefix `projects/<p>/tx/<t>/`. */
const transactionOf = (prefix: string) => prefix.slice(0, -1).split("/").pop()!;

/**
 * Removes raw objects that nothing will ever read: a transaction's folder in the object store
 * older than MAILSTOP_ORPHAN_SWEEP_AGE_S whose transaction has no accept-ledger row and no
 * message row. Those are the leftovers of a transaction refused with 451 after its put (the
 * store or the ledger failed, or a put landed after its deadline) and of a done transaction
 * whose copies were all skipped (their inboxes deleted before the parse). Done ledger rows are
 * pruned at the same age first, so such folders come up here. Transaction ids are ULIDs: a
 * folder's age is in its name, and folders are listed oldest first, so each project's listing
 * stops at the first young one. Projects come from the database (s3rver cannot list the
 * project level, see BlobStore.listPrefixes).
 */
export function sweepOrphansJob(deps: ParserDeps) {
  return async (): Promise<number> => {
    // Never a folder younger than the reconciler's floor, whatever the setting: within the
    // edge's write deadline a folder's ledger row may not be committed yet, and its transaction
    // may still be answered 250 (a large message's parse would then find no raw source).
    const cutoff = new Date(Date.now() - Math.max(deps.config.orphanSweepAgeSeconds, RECONCILE_MIN_AGE_S) * 1000);
    while ((await pruneDoneTransactions(deps.db, cutoff, 1000)) === 1000);
    const projects = await deps.db.selectFrom("projects").select("id").orderBy("id").execute();
    let swept = 0;
    for (const { id: projectId } of projects) {
      let candidates: { id: string; rawKey: string; prefix: string }[] = [];
      const sweep = async () => {
        const known = await knownTransactions(deps.db, candidates);
        const orphans = candidates.filter((candidate) => !known.has(candidate.id));
        for (const orphan of orphans) await deps.blobs.deletePrefix(orphan.prefix);
        swept += orphans.length;
        candidates = [];
      };
      for await (const prefix of deps.blobs.listPrefixes(`${blobKeys.project(projectId)}tx/`)) {
        const id = transactionOf(prefix);
        const minted = transactionTime(id);
        if (minted === null) continue;
        if (minted >= cutoff) break;
        candidates.push({ id, rawKey: blobKeys.raw(projectId, id), prefix });
        if (candidates.length === CHECK_BATCH) await sweep();
      }
      await sweep();
    }
    if (swept > 0) deps.logger.info({ transactions: swept }, "swept raw objects no transaction or message knows");
    return swept;
  };
}
