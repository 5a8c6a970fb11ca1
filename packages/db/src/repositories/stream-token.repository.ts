import type { Db } from "../database";
import { API_KEY_RECORD_COLUMNS, type ApiKeyRecord, limitUsageColumns, toApiKeyRecord } from "./credential.repository";

/** A stream token as authentication sees it: the key that minted it, and the one inbox it opens. */
export interface StreamTokenRecord {
  tokenHash: Buffer;
  expiresAt: Date;
  inbox: { id: string; address: string };
  key: ApiKeyRecord;
}

export async function insertStreamToken(
  db: Db,
  input: { tokenHash: Buffer; projectId: string; inboxId: string; apiKeyId: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto("stream_tokens")
    .values({ token_hash: input.tokenHash, project_id: input.projectId, inbox_id: input.inboxId, api_key_id: input.apiKeyId, expires_at: input.expiresAt })
    .execute();
}

/** One indexed query: the token, its inbox, and the minting key with its project, organisation and the usage its limits need in `period`. */
export async function findStreamTokenByHash(db: Db, tokenHash: Buffer, period: string): Promise<StreamTokenRecord | null> {
  const row = await db
    .selectFrom("stream_tokens as t")
    .innerJoin("inboxes as i", (join) => join.onRef("i.id", "=", "t.inbox_id").onRef("i.project_id", "=", "t.project_id"))
    .innerJoin("api_keys as k", "k.id", "t.api_key_id")
    .innerJoin("projects as p", "p.id", "k.project_id")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select(API_KEY_RECORD_COLUMNS)
    .select(limitUsageColumns(period))
    .select(["t.token_hash", "t.expires_at as token_expires_at", "i.id as inbox_id", "i.address as inbox_address"])
    .where("t.token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    tokenHash: row.token_hash,
    expiresAt: row.token_expires_at,
    inbox: { id: row.inbox_id, address: row.inbox_address },
    key: toApiKeyRecord(row),
  };
}

/** Removes tokens that expired before `now` (the reaper's housekeeping). Returns how many went. */
export async function deleteExpiredStreamTokens(db: Db, now = new Date()): Promise<number> {
  const result = await db.deleteFrom("stream_tokens").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
