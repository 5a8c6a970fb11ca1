import { limitsNeedUsage } from "@mailstop/core";
import type { ApiKeyRecord } from "@mailstop/db";
import type { Bus, CredentialChange, CredentialChangeListener } from "@mailstop/messaging";
import { LRUCache } from "lru-cache";

/** Reads a key by the SHA-256 digest of its secret, with the usage its limits need in `period` (findApiKeyByHash). */
export type ApiKeyLoader = (keyHash: Buffer, period: string) => Promise<ApiKeyRecord | null>;

/** How authentication finds a key by its digest: the cache, or the database itself. */
export interface ApiKeyLookup {
  find(keyHash: Buffer, period: string): Promise<ApiKeyRecord | null>;
}

/**
 * How long a cached key is trusted without a word from the bus. Revocations and the other
 * changes are pushed (under a second); this bounds only what a lost push could leave: a change
 * whose publish failed after its commit, or a subscriber connection that died without the
 * process noticing yet. A key used more often than every 5 s is read once per 5 s, which is
 * all the saving there is to have (docs/decisions.md "The API-key cache").
 */
export const KEY_CACHE_TTL_MS = 5_000;

export interface ApiKeyCacheOptions {
  /** The most keys held, least recently used dropped first; 0 holds none: every lookup reads the database. */
  maxEntries: number;
  ttlMs: number;
  /** The clock of the TTL, for tests; `performance` by default. */
  clock?: { now(): number };
}

/** Whether a change concerns the key of `record`. */
function concerns(change: CredentialChange, record: ApiKeyRecord): boolean {
  switch (change.scope) {
    case "api_key":
      return record.id === change.id;
    case "project":
      return record.project.id === change.id;
    case "organisation":
      return record.organisation.id === change.id;
  }
}

/**
 * The API keys this process authenticated lately, by the digest of their secret (never the
 * secret), so a request costs one query instead of two. What it holds cannot go stale
 * unheard: a key is held only while the bus is heard (the credential channel, see
 * {@link Bus.watchCredentialChanges}); each change published forgets the keys under what
 * changed; losing the bus forgets everything and bypasses the cache until the bus is heard
 * again. Held only: keys not revoked whose project has no limit that needs usage (which
 * changes with every stored message, so such keys are read each time, usage and all). Unknown
 * keys are never held, so guessing fills nothing.
 */
export class ApiKeyCache implements ApiKeyLookup, CredentialChangeListener {
  private readonly held: LRUCache<string, ApiKeyRecord> | null;
  /** Whether the bus is heard: until then, and while it is lost, every lookup reads the database. */
  private hearing = false;
  /**
   * Moves with every change, loss and resume: a lookup whose read began before one may have
   * read what the change replaced, so it keeps its answer out of the cache.
   */
  private generation = 0;

  constructor(
    private readonly load: ApiKeyLoader,
    options: ApiKeyCacheOptions,
  ) {
    this.held =
      options.maxEntries > 0
        ? new LRUCache<string, ApiKeyRecord>({ max: options.maxEntries, ttl: options.ttlMs, ...(options.clock ? { perf: options.clock, ttlResolution: 0 } : {}) })
        : null;
  }

  async find(keyHash: Buffer, period: string): Promise<ApiKeyRecord | null> {
    if (this.held === null || !this.hearing) return this.load(keyHash, period);
    const digest = keyHash.toString("base64");
    const cached = this.held.get(digest);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const record = await this.load(keyHash, period);
    if (record !== null && record.revokedAt === null && !limitsNeedUsage(record.limits) && this.hearing && generation === this.generation) {
      this.held.set(digest, record);
    }
    return record;
  }

  /** How many keys are held. */
  get size(): number {
    return this.held?.size ?? 0;
  }

  changed(change: CredentialChange): void {
    this.generation += 1;
    if (this.held === null) return;
    const forget = [...this.held.entries()].filter(([, record]) => concerns(change, record)).map(([digest]) => digest);
    for (const digest of forget) this.held.delete(digest);
  }

  lost(): void {
    this.hearing = false;
    this.generation += 1;
    this.held?.clear();
  }

  resumed(): void {
    this.generation += 1;
    this.held?.clear();
    this.hearing = true;
  }

  /**
   * Listens to the bus's credential changes; the cache is used from the moment the
   * subscription is live. Returns what stops listening (and stops using the cache).
   */
  async watch(bus: Bus): Promise<() => Promise<void>> {
    const unwatch = await bus.watchCredentialChanges(this);
    this.resumed();
    return async () => {
      this.lost();
      await unwatch();
    };
  }
}
