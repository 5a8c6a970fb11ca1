import { GroupCommit, type StoreMessageInput, type StoredCopy } from "@mailstop/db";

/** Stores several inputs in one transaction, all or nothing (storeMessageBatch). */
export type StoreBatch = (inputs: StoreMessageInput[]) => Promise<StoredCopy[][]>;

/** The most body text one batch carries: the bodies travel as parameters of one statement. */
export const MAX_BATCH_BODY_CHARS = 32 * 1024 * 1024;

function bodyChars({ content }: StoreMessageInput): number {
  return (content.textBody?.length ?? 0) + (content.htmlBody?.length ?? 0) + (content.headerBlock?.length ?? 0);
}

/**
 * Group commit for the parse jobs of one process (GroupCommit). Concurrent jobs into one inbox
 * used to queue on its row lock and the project's usage counter, one commit each; now a batch
 * pays one lock and one commit. A batch carries at most MAX_BATCH_BODY_CHARS of bodies.
 */
export class StoreBatcher {
  private readonly commits: GroupCommit<StoreMessageInput, StoredCopy[]>;

  constructor(storeBatch: StoreBatch, maxBatch = 64, maxBatchChars = MAX_BATCH_BODY_CHARS) {
    this.commits = new GroupCommit(storeBatch, { maxBatch, weight: bodyChars, maxWeight: maxBatchChars });
  }

  store(input: StoreMessageInput): Promise<StoredCopy[]> {
    return this.commits.submit(input);
  }
}
