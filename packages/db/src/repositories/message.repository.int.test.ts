import { type Selectable, sql } from "kysely";
import { newId } from "@mailstop/core";
import type { Database, Db } from "../index";
import { ensureInbox } from "./inbox.repository";
import { type MessageRecord, findReadableMessage } from "./message-read.repository";
import { type ParsedContent, type StoreMessageInput, storeMessageBatch } from "./message.repository";
import { storeInput } from "./store-input.fixture";
import { useRepositoryDatabase } from "./repository-database.fixture";

const suite = useRepositoryDatabase("mailstop_messages", ["batch"]);
const projectId = suite.projectId("batch");
let db: Db;
beforeAll(() => {
  db = suite.db;
});

async function inbox(tag: string): Promise<string> {
  const { inbox } = await ensureInbox(db, newId("inbox"), { projectId, domainId: null, tag, address: `batch.${tag}@mailstop.test`, labels: {}, retentionSeconds: 3600 });
  return inbox.id;
}

const input = (rawKey: string, inboxIds: string[], receivedAt = new Date()): StoreMessageInput => storeInput(projectId, rawKey, inboxIds, { receivedAt, withAttachment: true });

const used = async () =>
  Number((await db.selectFrom("usage_counters").select("used").where("project_id", "=", projectId).where("metric", "=", "message.received").executeTakeFirst())?.used ?? 0);

describe("storeMessageBatch", () => {
  it("stores several sources in one transaction: counters move once per new copy, seq follows input order, a repeat finds its row", async () => {
    const [a, b] = [await inbox("a"), await inbox("b")];
    const before = await used();
    const first = input(`raw/${newId("message")}`, [a, b]);
    const second = input(`raw/${newId("message")}`, [a]);
    // The same job twice in one batch (a duplicated delivery), and a copy for a deleted inbox.
    const results = await storeMessageBatch(db, [first, second, { ...second, copies: second.copies.map((c) => ({ ...c, newMessageId: newId("message") })) }, input("raw/gone", [newId("inbox")])]);

    expect(results.map((copies) => copies.map((c) => c.inserted))).toEqual([[true, true], [true], [false], []]);
    expect(results[2]![0]!.messageId).toBe(results[1]![0]!.messageId);
    const rows = await db.selectFrom("messages").select(["id", "raw_key", "seq", "stream_seq"]).where("inbox_id", "=", a).orderBy("seq").execute();
    expect(rows.map((r) => r.raw_key)).toEqual([first.rawKey, second.rawKey]);
    expect(BigInt(rows[0]!.stream_seq!)).toBeLessThan(BigInt(rows[1]!.stream_seq!));
    const counts = await db.selectFrom("inboxes").select(["id", "message_count"]).where("id", "in", [a, b]).execute();
    expect(Object.fromEntries(counts.map((c) => [c.id, c.message_count]))).toEqual({ [a]: 2, [b]: 1 });
    expect((await used()) - before).toBe(3);
    expect(await db.selectFrom("attachments").select("id").where("message_id", "in", rows.map((r) => r.id)).execute()).toHaveLength(2);

    // Retried later: nothing moves.
    const again = await storeMessageBatch(db, [first]);
    expect(again[0]!.map((c) => c.inserted)).toEqual([false, false]);
    expect((await used()) - before).toBe(3);
  });

  it("stores nothing of a batch that fails", async () => {
    const a = await inbox("c");
    const broken = input(`raw/${newId("message")}`, [a]);
    // Two copies claiming one message id: the batch's insert fails as a whole.
    const clash = { ...input(`raw/${newId("message")}`, [a]), copies: broken.copies };
    await expect(storeMessageBatch(db, [input(`raw/${newId("message")}`, [a]), broken, { ...clash, rawKey: `raw/${newId("message")}` }])).rejects.toThrow();
    expect(await db.selectFrom("messages").select("id").where("inbox_id", "=", a).execute()).toHaveLength(0);
  });

  it("stores a large source into many inboxes: its body travels once, not once per copy (jsonb stops at 256 MB)", async () => {
    const inboxes = await Promise.all(Array.from({ length: 30 }, (_, n) => inbox(`big${n}`)));
    const big = input(`raw/${newId("message")}`, inboxes);
    // 9 MB of text: 270 MB if every copy carried it inside the statement's jsonb.
    const text = "0123456789abcdef".repeat(9 * 65_536);
    const [copies] = await storeMessageBatch(db, [{ ...big, content: { ...big.content, textBody: text } }]);
    expect(copies!.map((copy) => copy.inserted)).toEqual(inboxes.map(() => true));
    const lengths = await db.selectFrom("messages").select(sql<number>`length(text_body)`.as("length")).where("raw_key", "=", big.rawKey).execute();
    expect(lengths.map((row) => Number(row.length))).toEqual(inboxes.map(() => text.length));
  });
});

describe("a message with every column given", () => {
  it("reads back each column as it was given, from the row and from the reads' message", async () => {
    const inboxId = await inbox("every-column");
    // Visible after its arrival (sim.delay) and since: no stream cursor yet, and readable now.
    const receivedAt = new Date(Date.now() - 60_000);
    const visibleAt = new Date(receivedAt.getTime() + 30_000);
    const [messageId, attachmentId] = [newId("message"), newId("attachment")];
    const content: ParsedContent = {
      messageId: "<every-column@x.test>",
      correlationId: "run-42",
      subject: "Every column",
      from: { address: "sender@x.test", name: "Sender" },
      to: [{ address: "to@x.test", name: "To" }],
      cc: [{ address: "cc@x.test", name: null }],
      replyTo: [{ address: "reply@x.test", name: "Reply" }],
      headers: [
        ["subject", "Every column"],
        ["x-campaign", "spring"],
      ],
      textBody: "the text 424242",
      htmlBody: "<p>the html</p>",
      headerBlock: "Subject: Every column\r\nX-Campaign: spring",
      parts: { text: { size: 15 }, html: { size: 15 }, headers: { size: 41 } },
      codes: ["424242"],
      links: [{ url: "https://x.test/verify", kind: "verify", text: "Verify" }],
      parseError: "a part could not be decoded",
      parseWarnings: ["too_many_addresses", "truncated_parts"],
      attachments: [{ position: 0, filename: "a.pdf", contentType: "application/pdf", contentId: "<a@x.test>", size: 7, blobKey: "k/a.pdf" }],
    };
    const input: StoreMessageInput = {
      projectId,
      kind: "captured",
      rawKey: `raw/${newId("message")}`,
      size: 4321,
      envelopeFrom: "bounce@x.test",
      receivedAt,
      metric: "message.captured",
      periodStart: "2026-11-01",
      content,
      copies: [{ inboxId, newMessageId: messageId, newAttachmentIds: [attachmentId], envelopeTo: "rcpt@x.test", visibleAt, complaint: true, labels: { recipient: "rcpt@x.test" } }],
      completesTransaction: null,
    };
    await storeMessageBatch(db, [input]);

    // Typed as the whole row: a column added to the table must be given here too.
    const row: Selectable<Database["messages"]> = {
      id: messageId,
      project_id: projectId,
      inbox_id: inboxId,
      seq: expect.stringMatching(/^[1-9]\d*$/),
      stream_seq: null,
      kind: "captured",
      raw_key: input.rawKey,
      size: 4321,
      envelope_from: "bounce@x.test",
      envelope_to: "rcpt@x.test",
      message_id: "<every-column@x.test>",
      correlation_id: "run-42",
      subject: "Every column",
      from_address: "sender@x.test",
      from_name: "Sender",
      to: content.to,
      cc: content.cc,
      reply_to: content.replyTo,
      headers: content.headers,
      labels: { recipient: "rcpt@x.test" },
      text_body: content.textBody,
      html_body: content.htmlBody,
      header_block: content.headerBlock,
      parts: content.parts,
      codes: ["424242"],
      links: content.links,
      parse_error: "a part could not be decoded",
      parse_warnings: ["too_many_addresses", "truncated_parts"],
      checks: null,
      complaint: true,
      received_at: receivedAt,
      visible_at: visibleAt,
      // The inbox's retention after arrival.
      expires_at: new Date(receivedAt.getTime() + 3600_000),
      deleted_at: null,
    };
    expect(await db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirstOrThrow()).toEqual(row);
    const attachment: Selectable<Database["attachments"]> = {
      id: attachmentId,
      message_id: messageId,
      project_id: projectId,
      position: 0,
      filename: "a.pdf",
      content_type: "application/pdf",
      content_id: "<a@x.test>",
      size: 7,
      blob_key: "k/a.pdf",
    };
    expect(await db.selectFrom("attachments").selectAll().where("message_id", "=", messageId).execute()).toEqual([attachment]);

    const message: MessageRecord = {
      id: messageId,
      projectId,
      inboxId,
      inboxAddress: "batch.every-column@mailstop.test",
      seq: row.seq,
      streamSeq: null,
      kind: "captured",
      rawKey: input.rawKey,
      size: 4321,
      envelopeFrom: "bounce@x.test",
      envelopeTo: "rcpt@x.test",
      messageId: content.messageId,
      correlationId: content.correlationId,
      subject: content.subject,
      from: content.from,
      to: content.to,
      cc: content.cc,
      replyTo: content.replyTo,
      headers: content.headers,
      labels: { recipient: "rcpt@x.test" },
      textBody: content.textBody,
      htmlBody: content.htmlBody,
      headerBlock: content.headerBlock,
      parts: content.parts,
      codes: content.codes,
      links: content.links,
      parseError: content.parseError,
      parseWarnings: content.parseWarnings,
      checks: null,
      complaint: true,
      receivedAt,
      visibleAt,
      expiresAt: row.expires_at,
      attachments: [{ id: attachmentId, position: 0, filename: "a.pdf", contentType: "application/pdf", size: 7, blobKey: "k/a.pdf" }],
    };
    expect(await findReadableMessage(db, projectId, messageId)).toEqual(message);
  });
});
