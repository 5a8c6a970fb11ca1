import type { StoreMessageInput, StoredCopy } from "@mailstop/db";
import { StoreBatcher } from "./store-batcher";

const input = (rawKey: string) => ({ rawKey }) as StoreMessageInput;
const copies = (rawKey: string): StoredCopy[] => [{ inboxId: "ibx", messageId: rawKey, streamSeq: "1", visibleAt: new Date(0), inserted: true }];

describe("StoreBatcher", () => {
  it("stores at once when idle, then together whatever arrived while a store was in flight", async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const batcher = new StoreBatcher(async (inputs) => {
      calls.push(inputs.map((i) => i.rawKey));
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return inputs.map((i) => copies(i.rawKey));
    });
    const first = batcher.store(input("a"));
    const later = ["b", "c", "d"].map((key) => batcher.store(input(key)));
    expect(calls).toEqual([["a"]]);
    release();
    expect(await first).toEqual(copies("a"));
    expect(await Promise.all(later)).toEqual(["b", "c", "d"].map(copies));
    expect(calls).toEqual([["a"], ["b", "c", "d"]]);
  });

  it("stores a failed batch's inputs one by one, so only the refused one fails", async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const batcher = new StoreBatcher(async (inputs) => {
      calls.push(inputs.map((i) => i.rawKey));
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      if (inputs.some((i) => i.rawKey === "bad")) throw new Error("refused");
      return inputs.map((i) => copies(i.rawKey));
    });
    const first = batcher.store(input("a"));
    const good = batcher.store(input("b"));
    const bad = batcher.store(input("bad"));
    release();
    await first;
    expect(await good).toEqual(copies("b"));
    await expect(bad).rejects.toThrow("refused");
    expect(calls).toEqual([["a"], ["b", "bad"], ["b"], ["bad"]]);
  });
});
