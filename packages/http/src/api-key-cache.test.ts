import { inspect } from "node:util";
import { sha256 } from "@mailstop/core";
import type { ApiKeyRecord } from "@mailstop/db";
import { createLogger } from "@mailstop/logging";
import { type CredentialChange, InProcessBus } from "@mailstop/messaging";
import { ApiKeyCache, type ApiKeyCacheOptions } from "./api-key-cache";

const SECRET = "is_test_0123456789abcdef0123456789abcdef";
const PERIOD = "2026-11-01";

function record(id: string, overrides: { projectId?: string; organisationId?: string; revokedAt?: Date | null; limits?: Partial<ApiKeyRecord["limits"]> } = {}): ApiKeyRecord {
  return {
    id,
    keyHash: sha256(`secret-of-${id}`),
    environment: "test",
    scopes: ["inboxes:read"],
    expiresAt: null,
    revokedAt: overrides.revokedAt ?? null,
    project: { id: overrides.projectId ?? "prj_1", key: "p", region: "us", maxConcurrentWaits: 10, rateLimits: { read: null, write: null } },
    organisation: { id: overrides.organisationId ?? "org_1", suspended: false, organisationLimits: false },
    limits: {
      organisationLimits: false,
      project: { monthlyMessages: null, messagesUsed: null },
      organisation: { monthlyMessages: null, messagesUsed: null, storageBytes: null, storedBytes: null },
      ...overrides.limits,
    },
  };
}

/** A database of keys by digest that counts its reads; `rows` may be changed between lookups. */
function fakeDatabase(rows: Map<string, ApiKeyRecord>) {
  const reads: string[] = [];
  return {
    reads,
    load: async (keyHash: Buffer) => {
      reads.push(keyHash.toString("hex"));
      const row = rows.get(keyHash.toString("hex"));
      // A fresh object per read, as the database gives.
      return row === undefined ? null : structuredClone(row);
    },
  };
}

/** A cache over `records` (by secret) that hears the bus from the start. */
function hearingCache(records: Record<string, ApiKeyRecord>, options: Partial<ApiKeyCacheOptions> = {}) {
  const rows = new Map(Object.entries(records).map(([secret, row]) => [sha256(secret).toString("hex"), row]));
  const database = fakeDatabase(rows);
  const cache = new ApiKeyCache(database.load, { maxEntries: 100, ttlMs: 5000, ...options });
  cache.resumed();
  const find = (secret: string) => cache.find(sha256(secret), PERIOD);
  return { cache, rows, reads: database.reads, find };
}

describe("ApiKeyCache", () => {
  it("reads a key from the database once while the bus is heard, and hands the same record back", async () => {
    const { reads, find } = hearingCache({ a: record("key_a") });
    const first = await find("a");
    expect(await find("a")).toEqual(first);
    expect(await find("a")).toEqual(first);
    expect(reads).toHaveLength(1);
  });

  it("reads every lookup from the database until the bus is heard, while it is lost, and starts empty when it is heard again", async () => {
    const key = sha256("a").toString("hex");
    const rows = new Map([[key, record("key_a")]]);
    const database = fakeDatabase(rows);
    const cache = new ApiKeyCache(database.load, { maxEntries: 100, ttlMs: 5000 });
    const find = () => cache.find(sha256("a"), PERIOD);
    /** Two lookups of the key: how many database reads they took. */
    const readsOfTwoLookups = async () => {
      const before = database.reads.length;
      await find();
      await find();
      return database.reads.length - before;
    };
    expect(await readsOfTwoLookups()).toBe(2);
    expect(cache.size).toBe(0);

    cache.resumed();
    expect(await readsOfTwoLookups()).toBe(1);

    // Lost: what was published meanwhile reached no one here, so nothing held may be trusted.
    cache.lost();
    expect(cache.size).toBe(0);
    rows.set(key, record("key_a", { revokedAt: new Date() }));
    expect((await find())?.revokedAt).not.toBeNull();
    rows.set(key, record("key_a"));
    expect(await readsOfTwoLookups()).toBe(2);
    expect(cache.size).toBe(0);

    cache.resumed();
    expect(await readsOfTwoLookups()).toBe(1);
  });

  it.each<[string, CredentialChange, string[]]>([
    ["a key forgets that key only", { scope: "api_key", id: "key_a" }, ["a"]],
    ["a project forgets its keys only", { scope: "project", id: "prj_1" }, ["a", "b"]],
    ["an organisation forgets the keys of its projects only", { scope: "organisation", id: "org_1" }, ["a", "b", "c"]],
  ])("a change of %s", async (_name, change, forgotten) => {
    const { cache, reads, find } = hearingCache({
      a: record("key_a"),
      b: record("key_b"),
      c: record("key_c", { projectId: "prj_2" }),
      d: record("key_d", { projectId: "prj_3", organisationId: "org_2" }),
    });
    for (const secret of ["a", "b", "c", "d"]) await find(secret);
    reads.length = 0;
    cache.changed(change);
    for (const secret of ["a", "b", "c", "d"]) await find(secret);
    expect(reads).toEqual(forgotten.map((secret) => sha256(secret).toString("hex")));
  });

  it("keeps out the answer of a read that began before a change, a loss or a resume", async () => {
    for (const event of ["changed", "lost", "resumed"] as const) {
      const { cache, reads, find } = hearingCache({ a: record("key_a") });
      const reading = find("a");
      if (event === "changed") cache.changed({ scope: "api_key", id: "key_other" });
      else cache[event]();
      if (event === "lost") cache.resumed();
      await reading;
      expect(cache.size).toBe(0);
      await find("a");
      expect(reads).toHaveLength(2);
    }
  });

  it("holds no unknown key, no revoked key, and no key whose project has a limit that needs usage", async () => {
    const { cache, reads, find } = hearingCache({
      revoked: record("key_r", { revokedAt: new Date() }),
      allowance: record("key_m", { limits: { project: { monthlyMessages: 100, messagesUsed: 3 } } }),
      organisation: record("key_o", {
        limits: { organisationLimits: true, organisation: { monthlyMessages: null, messagesUsed: null, storageBytes: 1000, storedBytes: 10 } },
      }),
      // With organisation limits on, the project's own allowance does not apply: nothing needs usage.
      ignored: record("key_i", { limits: { organisationLimits: true, project: { monthlyMessages: 100, messagesUsed: null } } }),
    });
    for (const secret of ["unknown", "revoked", "allowance", "organisation", "ignored"]) {
      await find(secret);
      await find(secret);
    }
    expect(reads).toHaveLength(9);
    expect(cache.size).toBe(1);
  });

  it("reads a held key again once its time to live has passed", async () => {
    let now = 1_000;
    const { reads, find } = hearingCache({ a: record("key_a") }, { ttlMs: 5000, clock: { now: () => now } });
    await find("a");
    now += 4999;
    await find("a");
    expect(reads).toHaveLength(1);
    now += 2;
    await find("a");
    expect(reads).toHaveLength(2);
  });

  it("holds at most maxEntries keys, dropping the least recently used; none at all with 0", async () => {
    const keys = Object.fromEntries(["a", "b", "c"].map((secret) => [secret, record(`key_${secret}`)]));
    const bounded = hearingCache(keys, { maxEntries: 2 });
    await bounded.find("a");
    await bounded.find("b");
    await bounded.find("a");
    await bounded.find("c");
    expect(bounded.cache.size).toBe(2);
    bounded.reads.length = 0;
    await bounded.find("a");
    await bounded.find("b");
    expect(bounded.reads).toEqual([sha256("b").toString("hex")]);

    const off = hearingCache(keys, { maxEntries: 0 });
    await off.find("a");
    await off.find("a");
    expect(off.reads).toHaveLength(2);
    expect(off.cache.size).toBe(0);
  });

  it("never holds the secret itself, in any form: only its digest", async () => {
    const { cache, find } = hearingCache({ [SECRET]: record("key_s") });
    await find(SECRET);
    expect(cache.size).toBe(1);
    const everything = inspect(cache, { depth: null, maxArrayLength: null, maxStringLength: null });
    const secretBytes = Buffer.from(SECRET);
    for (const form of [SECRET, secretBytes.toString("hex"), secretBytes.toString("base64"), SECRET.slice("is_test_".length)]) {
      expect(everything).not.toContain(form);
    }
  });

  it("hears the bus once watching: a published change forgets the key before the publish returns; unwatching stops using the cache", async () => {
    const bus = new InProcessBus(createLogger({ level: "silent" }));
    const rows = new Map([[sha256("a").toString("hex"), record("key_a")]]);
    const database = fakeDatabase(rows);
    const cache = new ApiKeyCache(database.load, { maxEntries: 100, ttlMs: 5000 });
    const unwatch = await cache.watch(bus);
    await cache.find(sha256("a"), PERIOD);
    await cache.find(sha256("a"), PERIOD);
    expect(database.reads).toHaveLength(1);
    await bus.publishCredentialChange({ scope: "api_key", id: "key_a" });
    expect(cache.size).toBe(0);
    await unwatch();
    await cache.find(sha256("a"), PERIOD);
    await cache.find(sha256("a"), PERIOD);
    expect(database.reads).toHaveLength(3);
    await bus.close();
  });
});
