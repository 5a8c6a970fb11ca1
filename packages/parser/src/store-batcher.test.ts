import type { StoreMessageInput, StoredCopy } from "@mailstop/db";
import { StoreBatcher } from "./store-batcher";

const input = (rawKey: string, textBody = "") => ({ rawKey, content: { textBody, htmlBody: null, headerBlock: null } }) as StoreMessageInput;
const copies = (rawKey: string): StoredCopy[] => [{ inboxId: "ibx", messageId: rawKey, streamSeq: "1", visibleAt: new Date(0), inserted: true, raisedWebhookEvents: false }];

/**
 * A batcher whose first store is held until `release()`, so the inputs sent meanwhile queue
 * up; `calls` records each store's raw keys. `refuse` fails any store that includes it.
 */
function gatedBatcher(options: { refuse?: string; maxBatchChars?: number } = {}) {
  const calls: string[][] = [];
  let release: () => void = () => undefined;
  const batcher = new StoreBatcher(
    async (inputs) => {
      calls.push(inputs.map((i) => i.rawKey));
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      if (inputs.some((i) => i.rawKey === options.refuse)) throw new Error("refused");
      return inputs.map((i) => copies(i.rawKey));
    },
    64,
    options.maxBatchChars,
  );
  return { batcher, calls, release: () => release() };
}

describe("StoreBatcher", () => {
  it("stores at once when idle, then together whatever arrived while a store was in flight", async () => {
    const { batcher, calls, release } = gatedBatcher();
    const first = batcher.store(input("a"));
    const later = ["b", "c", "d"].map((key) => batcher.store(input(key)));
    expect(calls).toEqual([["a"]]);
    release();
    expect(await first).toEqual(copies("a"));
    expect(await Promise.all(later)).toEqual(["b", "c", "d"].map(copies));
    expect(calls).toEqual([["a"], ["b", "c", "d"]]);
  });

  it("stores a failed batch's inputs one by one, so only the refused one fails", async () => {
    const { batcher, calls, release } = gatedBatcher({ refuse: "bad" });
    const first = batcher.store(input("a"));
    const good = batcher.store(input("b"));
    const bad = batcher.store(input("bad"));
    release();
    await first;
    expect(await good).toEqual(copies("b"));
    await expect(bad).rejects.toThrow("refused");
    expect(calls).toEqual([["a"], ["b", "bad"], ["b"], ["bad"]]);
  });

  it("cuts a batch at its body budget, but always takes the first input however large", async () => {
    const { batcher, calls, release } = gatedBatcher({ maxBatchChars: 10 });
    const first = batcher.store(input("a"));
    const later = [input("big", "x".repeat(25)), input("b", "x".repeat(4)), input("c", "x".repeat(4)), input("d", "x".repeat(4))].map((i) => batcher.store(i));
    release();
    await first;
    await Promise.all(later);
    expect(calls).toEqual([["a"], ["big"], ["b", "c"], ["d"]]);
  });
});
