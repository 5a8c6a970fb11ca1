import type { Readable } from "node:stream";
import { withinDeadline } from "@mailstop/core";
import type { SpamCheck } from "@mailstop/db";
import { SPAMD_DEADLINE_MS, SPAMD_MAX_MESSAGE_BYTES, type SpamdAddress, SpamdError, spamdReport } from "./spamd-client";

/**
 * The first SPAMD_MAX_MESSAGE_BYTES of a raw source (and one byte more, so spamdPortion sees
 * it was longer): the rest is never read, and the stream is destroyed.
 */
async function readPrefix(raw: Readable | Buffer): Promise<Buffer> {
  if (Buffer.isBuffer(raw)) return raw;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of raw) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      chunks.push(bytes);
      size += bytes.length;
      if (size > SPAMD_MAX_MESSAGE_BYTES) break;
    }
  } finally {
    raw.destroy();
  }
  return Buffer.concat(chunks, size);
}

const ERROR: SpamCheck = { status: "error", score: null, threshold: null, rules: [] };

/**
 * SpamAssassin's verdict on a raw source, from spamd at `address` (MAILSTOP_SPAMD) within
 * SPAMD_DEADLINE_MS, reading the source included. Never rejects: spamd down, slow or answering
 * garbage gives status `error` (and `failed` hears why), so a message is always stored.
 */
export async function checkSpam(raw: Readable | Buffer, address: SpamdAddress, failed: (error: unknown) => void = () => undefined): Promise<SpamCheck> {
  const started = Date.now();
  try {
    const message = await withinDeadline(readPrefix(raw), SPAMD_DEADLINE_MS, "reading the raw source for spamd").catch((error: unknown) => {
      if (!Buffer.isBuffer(raw)) raw.destroy();
      throw error;
    });
    const left = SPAMD_DEADLINE_MS - (Date.now() - started);
    if (left <= 0) throw new SpamdError(`reading the raw source took the whole ${SPAMD_DEADLINE_MS} ms`);
    const report = await spamdReport(address, message, left);
    return { status: report.isSpam ? "spam" : "ham", score: report.score, threshold: report.threshold, rules: report.rules };
  } catch (error) {
    failed(error);
    return ERROR;
  }
}
