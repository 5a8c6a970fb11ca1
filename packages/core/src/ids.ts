import { randomFillSync } from "node:crypto";
import { decodeTime, monotonicFactory, ulid } from "ulid";

/** Every id prefix mailstop issues (docs/api.md "Ids"): one table, no ad-hoc prefixes. */
export const ID_PREFIXES = {
  organisation: "org",
  project: "prj",
  apiKey: "key",
  inbox: "ibx",
  message: "msg",
  attachment: "att",
  domain: "dom",
  webhook: "whk",
  webhookAttempt: "wha",
  webhookEvent: "whe",
  auditEvent: "evt",
  request: "req",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * ulid's default source calls crypto.randomBytes once per character, 16 system calls per id
 * (1.5 % of the process's CPU while ingesting, where each message takes several ids); this
 * one draws from the same CSPRNG through a pool refilled 1,024 values at a time.
 */
const pool = new Uint32Array(1024);
let nextInPool = pool.length;
export function pooledRandom(): number {
  if (nextInPool === pool.length) {
    randomFillSync(pool);
    nextInPool = 0;
  }
  return pool[nextInPool++]! / 2 ** 32;
}

// Monotonic within one process, so ids minted in the same millisecond still sort in order;
// list paging orders by id and relies on that.
const nextUlid = monotonicFactory(pooledRandom);

/** A new id: the kind's prefix, `_`, and a lower-case 26-character ULID. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid().toLowerCase()}`;
}

const ULID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` is a well-formed id of `kind`. */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ULID_BODY.test(value.slice(prefix.length));
}

/**
 * An internal id (no prefix): one SMTP transaction, the idempotency key of everything stored
 * from it. Never shown to clients. Its time (`at`, now by default) is the transaction's age.
 */
export function newTransactionId(at?: number): string {
  // A given time is not fed to the monotonic factory: it would keep the latest time it has seen.
  return (at === undefined ? nextUlid() : ulid(at, pooledRandom)).toLowerCase();
}

/** When a transaction id was minted (its ULID's time), or null when `id` is not one. */
export function transactionTime(id: string): Date | null {
  if (!ULID_BODY.test(id)) return null;
  return new Date(decodeTime(id.toUpperCase()));
}
