interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions<I> {
  /** The most inputs one batch takes. */
  maxBatch?: number;
  /** An input's share of a batch's budget (for example its body characters); a batch stops before it exceeds `maxWeight`. */
  weight?: (input: I) => number;
  maxWeight?: number;
}

/**
 * Group commit: an input goes to the database at once when no batch is in flight (an idle
 * writer adds no latency); inputs that arrive while one is in flight go together in the next
 * batch, so they share one round trip, one commit and its fsync. If a batch fails, its inputs
 * are written one by one, so an input the database refuses fails only its own caller.
 * `write` returns one output per input, in input order, all or nothing.
 */
export class GroupCommit<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private draining = false;
  private readonly maxBatch: number;
  private readonly weight: (input: I) => number;
  private readonly maxWeight: number;

  constructor(
    private readonly write: (inputs: I[]) => Promise<O[]>,
    options: GroupCommitOptions<I> = {},
  ) {
    this.maxBatch = options.maxBatch ?? 64;
    this.weight = options.weight ?? (() => 0);
    this.maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
  }

  /** Writes `input` in the next batch; resolves with its output once that batch has committed. */
  submit(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** How many queued inputs go next: up to maxBatch and maxWeight (always at least one). */
  private nextBatchLength(): number {
    let weight = 0;
    let length = 0;
    for (const pending of this.queue) {
      if (length === this.maxBatch) break;
      weight += this.weight(pending.input);
      if (length > 0 && weight > this.maxWeight) break;
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
          const outputs = await this.write(batch.map((pending) => pending.input));
          batch.forEach((pending, index) => pending.resolve(outputs[index]!));
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.reject(error);
            continue;
          }
          for (const pending of batch) {
            await this.write([pending.input]).then((outputs) => pending.resolve(outputs[0]!), pending.reject);
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
