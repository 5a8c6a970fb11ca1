import type { StoreMessageInput, StoredCopy } from "@mailstop/db";

/** Stores several inputs in one transaction, all or nothing (storeMessageBatch). */
export type StoreBatch = (inputs: StoreMessageInput[]) => Promise<StoredCopy[][]>;

/** The most body text one batch carries: the bodies travel as parameters of one statement. */
export const MAX_BATCH_BODY_CHARS = 32 * 1024 * 1024;

function bodyChars({ content }: StoreMessageInput): number {
  return (content.textBody?.length ?? 0) + (content.htmlBody?.length ?? 0) + (content.headerBlock?.length ?? 0);
}

interface Pending {
  input: StoreMessageInput;
  resolve: (copies: StoredCopy[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the parse jobs of one process. A job's rows go to the database at once when
 * no store is in flight (an idle parser adds no latency); jobs that finish parsing while one is
 * in flight are stored together in the next transaction. Concurrent jobs into one inbox used to
 * queue on its row lock and the project's usage counter, one commit each; now a batch pays one
 * lock and one commit. If a batch fails, its jobs are stored one by one, so a message the
 * database refuses fails only its own job.
 */
export class StoreBatcher {
  private readonly queue: Pending[] = [];
  private draining = false;

  constructor(
    private readonly storeBatch: StoreBatch,
    private readonly maxBatch = 64,
    private readonly maxBatchChars = MAX_BATCH_BODY_CHARS,
  ) {}

  store(input: StoreMessageInput): Promise<StoredCopy[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** How many queued inputs go next: up to maxBatch, and up to maxBatchChars of bodies (always at least one). */
  private nextBatchLength(): number {
    let chars = 0;
    let length = 0;
    for (const pending of this.queue) {
      if (length === this.maxBatch) break;
      chars += bodyChars(pending.input);
      if (length > 0 && chars > this.maxBatchChars) break;
      length += 1;
    }
    return length;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.nextBatchLength());
        try {
          const results = await this.storeBatch(batch.map((pending) => pending.input));
          batch.forEach((pending, index) => pending.resolve(results[index]!));
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.reject(error);
            continue;
          }
          for (const pending of batch) {
            await this.storeBatch([pending.input]).then((results) => pending.resolve(results[0]!), pending.reject);
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
