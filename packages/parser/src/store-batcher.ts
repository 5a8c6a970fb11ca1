import type { StoreMessageInput, StoredCopy } from "@mailstop/db";

/** Stores several inputs in one transaction, all or nothing (storeMessageBatch). */
export type StoreBatch = (inputs: StoreMessageInput[]) => Promise<StoredCopy[][]>;

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
  ) {}

  store(input: StoreMessageInput): Promise<StoredCopy[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
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
