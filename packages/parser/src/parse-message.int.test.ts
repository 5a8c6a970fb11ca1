import { randomBytes } from "node:crypto";
import { METRICS, newId, newTransactionId, periodStart } from "@mailstop/core";
import { type BlobStore, blobKeys } from "@mailstop/blob-store";
import type { ArrivalEvent, ParseMessageJob } from "@mailstop/messaging";
import { ledgerState, recordAcceptedTransactions } from "@mailstop/db";
import { eventually, uniqueTag, useTestServer } from "@mailstop/testkit";
import { sql } from "kysely";
import { unparseable } from "./mime-bombs.fixture";
import { PARSE_ATTEMPTS, parseMessageJob } from "./parse-message.job";
import type { ParserDeps } from "./deps";
import { parserDepsOf } from "./parser-deps.fixture";

const SIM_DELAY_MS = 800;
const server = useTestServer({ mail: true, env: { MAILSTOP_SIM_DELAY_MS: String(SIM_DELAY_MS) } });
let deps: ParserDeps;
beforeAll(() => {
  deps = parserDepsOf(server);
});

const createInbox = (tag = uniqueTag("parse")) => server.createInbox({ tag });

async function bytesOf(key: string): Promise<Buffer> {
  const stream = await deps.blobs.get(key);
  if (!stream) throw new Error(`no object ${key}`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A parse job for `raw`, stored where the edge would store it. */
async function stagedJob(inboxId: string, raw: string, sim: "delay" | "complaint" | null = null): Promise<ParseMessageJob> {
  const transactionId = newTransactionId();
  const rawKey = blobKeys.raw(server.project.projectId, transactionId);
  await deps.blobs.put(rawKey, Buffer.from(raw));
  return {
    transaction_id: transactionId,
    kind: "received",
    size: raw.length,
    received_at: new Date().toISOString(),
    envelope_from: "sender@x.test",
    deliveries: [{ project_id: server.project.projectId, project_key: server.project.projectKey, raw_key: rawKey, recipients: [{ address: "r@x.test", inbox_id: inboxId, sim }] }],
  };
}

describe("parse-message job", () => {
  it("keeps text, html and header block in the row and streams every attachment to the object store, byte for byte", async () => {
    const inbox = await createInbox();
    const subject = `Invoice ${newId("message")}`;
    const pdf = randomBytes(50_000);
    const png = randomBytes(2_000);
    await server.send({
      from: "billing@acme.example",
      to: inbox.address,
      subject,
      text: "Your invoice is attached. Confirm here: https://acme.example/verify?token=abc",
      html: '<p>Your invoice <img src="cid:logo@acme"></p><a href="https://acme.example/verify?token=abc">Confirm your email</a>',
      attachments: [
        { filename: "invoice.pdf", content: pdf, contentType: "application/pdf" },
        { filename: "logo.png", content: png, contentType: "image/png", cid: "logo@acme" },
      ],
    });
    const row = await server.stored(inbox.id, subject);
    expect(row.parts).toEqual({
      text: { size: Buffer.byteLength(row.text_body!) },
      html: { size: Buffer.byteLength(row.html_body!) },
      headers: { size: Buffer.byteLength(row.header_block!) },
    });
    expect(row.text_body).toContain("Your invoice is attached");
    expect(row.html_body).toContain('<a href="https://acme.example/verify?token=abc">');
    expect(row.header_block).toMatch(new RegExp(`^(.|\\r\\n)*Subject: ${subject}`));
    expect(row.header_block).not.toMatch(/\r\n\r\n/);
    expect(row.links).toEqual([{ url: "https://acme.example/verify?token=abc", kind: "verify", text: "Confirm your email" }]);

    const attachments = await server.db.selectFrom("attachments").selectAll().where("message_id", "=", row.id).orderBy("position").execute();
    // MIME order: the inline image sits in the related part, before the mixed-level PDF.
    expect(attachments.map(({ filename, content_type, size, content_id, position }) => ({ filename, content_type, size, content_id, position }))).toEqual([
      { filename: "logo.png", content_type: "image/png", size: 2_000, content_id: "<logo@acme>", position: 0 },
      { filename: "invoice.pdf", content_type: "application/pdf", size: 50_000, content_id: null, position: 1 },
    ]);
    expect((await bytesOf(attachments[0]!.blob_key)).equals(png)).toBe(true);
    expect((await bytesOf(attachments[1]!.blob_key)).equals(pdf)).toBe(true);
    expect(attachments[0]!.id).toMatch(/^att_[0-9a-z]{26}$/);
  });

  it("puts an html part larger than the inline cap in the object store, not the row", async () => {
    const inbox = await createInbox();
    const subject = `Big html ${newId("message")}`;
    const html = `<p>${"x".repeat(600_000)}</p>`;
    await server.send({ from: "a@b.test", to: inbox.address, subject, text: "short", html });
    const row = await server.stored(inbox.id, subject);
    expect(row.html_body).toBeNull();
    expect(row.parts.html).toEqual({ key: blobKeys.part(server.project.projectId, row.raw_key.split("/")[3]!, "html"), size: Buffer.byteLength(html) });
    expect((await bytesOf(row.parts.html!.key!)).toString()).toBe(html);
    expect(row.header_block).toContain(`Subject: ${subject}`);
  });

  it("parses the raw source carried in the job without reading it back from the store", async () => {
    const inbox = await createInbox();
    const subject = `Inline ${newId("message")}`;
    const raw = `Subject: ${subject}\r\nFrom: a@b.test\r\n\r\nhello inline\r\n`;
    const job = await stagedJob(inbox.id, raw);
    // The object is removed so that only the job's copy can be read: the edge never does this.
    await deps.blobs.delete([job.deliveries[0]!.raw_key]);
    await parseMessageJob(deps)({ ...job, raw: Buffer.from(raw).toString("base64") });
    const row = await server.stored(inbox.id, subject);
    expect(row.text_body).toBe("hello inline\n");
  });

  it("streams an attachment larger than one upload part to the store intact", async () => {
    const inbox = await createInbox();
    const subject = `Large ${newId("message")}`;
    const archive = randomBytes(11 * 1024 * 1024);
    await server.send({
      from: "a@b.test",
      to: inbox.address,
      subject,
      text: "attached",
      attachments: [{ filename: "dump.bin", content: archive, contentType: "application/octet-stream" }],
    });
    const row = await server.stored(inbox.id, subject);
    const [attachment] = await server.db.selectFrom("attachments").selectAll().where("message_id", "=", row.id).execute();
    expect(attachment?.size).toBe(archive.length);
    expect((await bytesOf(attachment!.blob_key)).equals(archive)).toBe(true);
  }, 60_000);

  it("extracts codes and the headers as decoded pairs", async () => {
    const inbox = await createInbox();
    const subject = `Código ${newId("message")}`;
    await server.send({ from: "a@b.test", to: inbox.address, subject, text: "Your verification code is 739201.", headers: { "X-Campaign": "spring" } });
    const row = await server.stored(inbox.id, subject);
    expect(row.codes).toEqual(["739201"]);
    expect(row.headers).toEqual(expect.arrayContaining([["subject", subject], ["x-campaign", "spring"]]));
  });

  it("stores a job delivered twice exactly once: same row, counters and metering moved once", async () => {
    const inbox = await createInbox();
    const subject = `Twice ${newId("message")}`;
    const job = await stagedJob(inbox.id, `Subject: ${subject}\r\nMessage-ID: <twice@x.test>\r\n\r\nbody\r\n`);
    const metered = () =>
      server.db
        .selectFrom("usage_counters")
        .select("used")
        .where("project_id", "=", server.project.projectId)
        .where("period_start", "=", periodStart(new Date()))
        .where("metric", "=", METRICS.received)
        .executeTakeFirst()
        .then((row) => Number(row?.used ?? 0));
    const before = await metered();
    await parseMessageJob(deps)(job);
    await parseMessageJob(deps)(job);
    await Promise.all([parseMessageJob(deps)(job), parseMessageJob(deps)(job)]);
    const rows = await server.db.selectFrom("messages").select(["id", "message_id"]).where("inbox_id", "=", inbox.id).execute();
    expect(rows).toEqual([{ id: expect.any(String), message_id: "<twice@x.test>" }]);
    expect(await metered()).toBe(before + 1);
    const counts = await server.db.selectFrom("inboxes").select("message_count").where("id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(counts.message_count).toBe(1);
  });

  it("on a retry, reads the stored raw source even when the job carries it: a message erased and reaped meanwhile stays gone", async () => {
    const inbox = await createInbox();
    const raw = `Subject: erased ${newId("message")}\r\n\r\nx\r\n`;
    const job = { ...(await stagedJob(inbox.id, raw)), raw: Buffer.from(raw).toString("base64") };
    // What the reaper leaves of an erased message: no row, no raw object.
    await deps.blobs.delete([job.deliveries[0]!.raw_key]);
    await parseMessageJob(deps)(job, 2);
    expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
  });

  it("stores a source with lone surrogates and NUL (a UTF-16 encoded word cut in half) with U+FFFD, sizes as stored", async () => {
    const inbox = await createInbox();
    // "a" then a lone high surrogate, in UTF-16LE: 61 00 00 D8.
    const halfWord = "=?utf-16le?B?YQAA2A==?=";
    const raw = [
      `Subject: ${halfWord}`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="b"',
      "",
      "--b",
      "Content-Type: text/html; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "<p>x=00y</p>",
      "--b",
      `Content-Type: text/plain; name="${halfWord}"`,
      `Content-Disposition: attachment; filename="${halfWord}"`,
      "",
      "attached",
      "--b--",
      "",
    ].join("\r\n");
    await parseMessageJob(deps)(await stagedJob(inbox.id, raw));
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row.subject).toBe("a\uFFFD");
    expect(row.html_body).toContain("x\uFFFDy");
    expect(row.parts.html!.size).toBe(Buffer.byteLength(row.html_body!));
    const [attachment] = await server.db.selectFrom("attachments").select("filename").where("message_id", "=", row.id).execute();
    expect(attachment!.filename).toBe("a\uFFFD");
  });

  it("stores nothing when the raw source is gone (a transaction the edge refused), and completes", async () => {
    const inbox = await createInbox();
    const job = await stagedJob(inbox.id, "Subject: gone\r\n\r\nx\r\n");
    const captureAddress = `gone-${newId("message").slice(-8)}@capture.example`;
    job.deliveries[0]!.recipients.push({ address: captureAddress, inbox_id: null, sim: null });
    await deps.blobs.delete([job.deliveries[0]!.raw_key]);
    await parseMessageJob(deps)(job);
    expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
    // No capture inbox appears for mail that was never accepted.
    const captured = await server.db.selectFrom("inboxes").select("id").where("project_id", "=", server.project.projectId).where("tag", "like", "capture.capture.example.%").execute();
    expect(captured).toEqual([]);
  });

  it("stores a source mailparser cannot parse as a raw-only message, its top-level headers read on their own, with the parse failure recorded", async () => {
    const inbox = await createInbox();
    // mailsplit refuses a nested part's header block over its size limit.
    const raw = unparseable("unreadable 123456");
    const job = await stagedJob(inbox.id, raw);
    await parseMessageJob(deps)(job);
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row.parse_error).toMatch(/header size/i);
    expect(row).toMatchObject({ subject: "unreadable 123456", from_address: "bomb@x.test", text_body: null, codes: ["123456"], size: raw.length, parse_warnings: ["unparseable"] });
    expect(row.header_block).toContain("Subject: unreadable 123456");
    expect((await bytesOf(row.raw_key)).length).toBe(raw.length);
  });

  it("stores a message whose decoded text holds NUL characters, replacing them", async () => {
    const inbox = await createInbox();
    const raw = "Subject: =?utf-8?q?a=00b?=\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nyour code=00 is 842913\r\n";
    await parseMessageJob(deps)(await stagedJob(inbox.id, raw));
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row.subject).toBe("a\uFFFDb");
    expect(row.text_body).toContain("code\uFFFD is 842913");
    expect(row.parse_error).toBeNull();
    expect(row.codes).toEqual(["842913"]);
  });

  it("keeps a message with no text part readable, with text null and no text part stored", async () => {
    const inbox = await createInbox();
    const subject = `Html only ${newId("message")}`;
    await server.send({ from: "a@b.test", to: inbox.address, subject, html: "<p>Use code <b>551177</b></p>" });
    const row = await server.stored(inbox.id, subject);
    expect(row.text_body).toBeNull();
    expect(row.parts.text).toBeUndefined();
    expect(row.codes).toEqual(["551177"]);
  });
});

/** Records the job's transaction in the accept ledger, as the edge does before its 250. */
async function recordLedger(job: ParseMessageJob): Promise<void> {
  await recordAcceptedTransactions(server.db, [
    { id: job.transaction_id, kind: job.kind, size: job.size, envelopeFrom: job.envelope_from, acceptedAt: new Date(job.received_at), deliveries: job.deliveries },
  ]);
}

/**
 * Runs `body` while PostgreSQL refuses, with SQLSTATE `code`, a parsed row (text_body set) of
 * messages whose subject is `subject`: a real refusal by the engine, scoped to one message.
 */
async function withRefusal(subject: string, code: string, body: () => Promise<void>): Promise<void> {
  const name = `refuse_${newId("message").slice(-12).toLowerCase()}`;
  // One statement each: the embedded engine prepares every statement.
  await sql
    .raw(
      `create function ${name}() returns trigger language plpgsql as $$ begin
         if new.subject = '${subject}' and new.text_body is not null then raise exception 'refused for the test' using errcode = '${code}'; end if;
         return new; end $$`,
    )
    .execute(server.db);
  await sql.raw(`create trigger ${name} before insert on messages for each row execute function ${name}()`).execute(server.db);
  try {
    await body();
  } finally {
    await sql.raw(`drop trigger ${name} on messages`).execute(server.db);
    await sql.raw(`drop function ${name}()`).execute(server.db);
  }
}

describe("a message that cannot be stored as parsed", () => {
  it("fails its attempts while the failure could pass, and on the last stores it raw-only with its headers and unparseable", async () => {
    const inbox = await createInbox();
    const subject = `Poison ${newId("message")}`;
    const job = await stagedJob(inbox.id, `Subject: ${subject}\r\nFrom: a@b.test\r\n\r\nbody 554433\r\n`);
    await recordLedger(job);
    await withRefusal(subject, "P0001", async () => {
      await expect(parseMessageJob(deps)(job, 1)).rejects.toThrow(/refused for the test/);
      await expect(parseMessageJob(deps)(job, PARSE_ATTEMPTS - 1)).rejects.toThrow(/refused for the test/);
      expect(await ledgerState(server.db, job.transaction_id)).toMatchObject({ state: "open" });
      await parseMessageJob(deps)(job, PARSE_ATTEMPTS);
    });
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subject, from_address: "a@b.test", text_body: null, parse_warnings: ["unparseable"], codes: [] });
    expect(row.parse_error).toMatch(/refused for the test/);
    expect((await bytesOf(row.raw_key)).toString()).toContain("body 554433");
    expect(await ledgerState(server.db, job.transaction_id)).toMatchObject({ state: "done" });
  });

  it("stores it raw-only at once when PostgreSQL refuses the values themselves (a data exception)", async () => {
    const inbox = await createInbox();
    const subject = `Refused ${newId("message")}`;
    const job = await stagedJob(inbox.id, `Subject: ${subject}\r\n\r\nbody\r\n`);
    await withRefusal(subject, "22023", () => parseMessageJob(deps)(job, 1));
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subject, text_body: null, parse_warnings: ["unparseable"] });
  });

  it("keeps failing, even on the last attempt, when the database itself fails", async () => {
    const inbox = await createInbox();
    const subject = `Disk full ${newId("message")}`;
    const job = await stagedJob(inbox.id, `Subject: ${subject}\r\n\r\nbody\r\n`);
    await withRefusal(subject, "53100", () => expect(parseMessageJob(deps)(job, PARSE_ATTEMPTS)).rejects.toThrow(/refused for the test/));
    expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
  });
});

/**
 * The deps with a bug past the read: storing a part larger than the inline cap in the object
 * store throws a TypeError, which is neither the message's fault nor an engine's.
 */
function withBugPastTheRead(): ParserDeps {
  const blobs = new Proxy(deps.blobs, {
    get(target, name) {
      if (name === "put") {
        const put: BlobStore["put"] = (key, body, options) =>
          key.endsWith("/html.html") ? Promise.reject(new TypeError("a bug past the read")) : target.put(key, body, options);
        return put;
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...deps, blobs };
}

describe("a failure past the read of a readable source", () => {
  it("fails the attempts while it could pass, storing nothing, and on the last stores the message raw-only with the failure", async () => {
    const inbox = await createInbox();
    const subject = `Bug ${newId("message")}`;
    const job = await stagedJob(inbox.id, `Subject: ${subject}\r\nFrom: a@b.test\r\nContent-Type: text/html\r\n\r\n<p>${"x".repeat(600_000)}</p>\r\n`);
    await recordLedger(job);
    const buggy = withBugPastTheRead();
    await expect(parseMessageJob(buggy)(job, 1)).rejects.toThrow("a bug past the read");
    await expect(parseMessageJob(buggy)(job, PARSE_ATTEMPTS - 1)).rejects.toThrow("a bug past the read");
    expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
    expect(await ledgerState(server.db, job.transaction_id)).toMatchObject({ state: "open" });

    await parseMessageJob(buggy)(job, PARSE_ATTEMPTS);
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subject, from_address: "a@b.test", html_body: null, parse_error: "a bug past the read", parse_warnings: ["unparseable"] });
    expect(await ledgerState(server.db, job.transaction_id)).toMatchObject({ state: "done" });
  });
});

describe("a gone raw source", () => {
  it("completes the job storing nothing and closes the transaction's ledger row", async () => {
    const inbox = await createInbox();
    const job = await stagedJob(inbox.id, "Subject: gone for good\r\n\r\nx\r\n");
    await recordLedger(job);
    await deps.blobs.delete([job.deliveries[0]!.raw_key]);
    await parseMessageJob(deps)(job, 3);
    expect(await ledgerState(server.db, job.transaction_id)).toMatchObject({ state: "done" });
    expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
  });
});

describe("a part larger than a message may be", () => {
  it("is cut at the configured message size: part_too_large, the rest of the message whole", async () => {
    const inbox = await createInbox();
    const raw = `Subject: big part\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nthe text\r\n--b\r\nContent-Type: application/octet-stream\r\n\r\n${"x".repeat(5_000)}\r\n--b--\r\n`;
    const small = { ...deps, config: { ...deps.config, smtp: { ...deps.config.smtp, maxMessageBytes: 2_000 } } };
    await parseMessageJob(small)(await stagedJob(inbox.id, raw));
    const row = await server.db.selectFrom("messages").selectAll().where("inbox_id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subject: "big part", text_body: "the text", parse_warnings: ["part_too_large"] });
    const attachment = await server.db.selectFrom("attachments").select("size").where("message_id", "=", row.id).executeTakeFirstOrThrow();
    expect(attachment.size).toBe(2_000);
  });
});

describe("arrivals", () => {
  it("are published after the row is committed, on the inbox's channel", async () => {
    const inbox = await createInbox();
    const subject = `Arrival ${newId("message")}`;
    let arrived: ArrivalEvent | undefined;
    const unsubscribe = await deps.bus.subscribeArrivals(inbox.id, (event) => {
      // The row must already be readable when the arrival is heard.
      void server.db
        .selectFrom("messages")
        .select(["id", "stream_seq"])
        .where("id", "=", event.message_id)
        .executeTakeFirst()
        .then((row) => (arrived = { ...event, seq: row?.stream_seq ?? "missing" }));
    });
    try {
      await server.send({ from: "a@b.test", to: inbox.address, subject, text: "x" });
      const event = await eventually(async () => arrived, { what: "the arrival" });
      const row = await server.stored(inbox.id, subject);
      expect(event).toEqual({ inbox_id: inbox.id, message_id: row.id, seq: row.stream_seq });
    } finally {
      await unsubscribe();
    }
  });

  it("of sim.delay messages are published only once they become visible, with a stream cursor after messages stored meanwhile", async () => {
    const inbox = await server.createInbox({ tag: `sim.delay.${newId("message").slice(-8)}` });
    const heard = new Map<string, { at: number; seq: string }>();
    const unsubscribe = await deps.bus.subscribeArrivals(inbox.id, (event) => heard.set(event.message_id, { at: Date.now(), seq: event.seq }));
    try {
      const started = Date.now();
      await parseMessageJob(deps)(await stagedJob(inbox.id, "Subject: delayed\r\n\r\nlater\r\n", "delay"));
      const delayed = await server.stored(inbox.id, "delayed");
      // Hidden: no stream cursor yet, and no arrival.
      expect(delayed.stream_seq).toBeNull();
      await parseMessageJob(deps)(await stagedJob(inbox.id, "Subject: prompt\r\n\r\nnow\r\n"));
      const prompt = await server.stored(inbox.id, "prompt");
      expect(heard.has(delayed.id)).toBe(false);

      const arrival = await eventually(async () => heard.get(delayed.id), { what: "the delayed arrival" });
      expect(arrival.at - started).toBeGreaterThanOrEqual(SIM_DELAY_MS - 50);
      // Stored first, revealed after `prompt`: its cursor follows prompt's, so a stream resumed
      // after prompt still receives it.
      const revealed = await server.stored(inbox.id, "delayed");
      expect(arrival.seq).toBe(revealed.stream_seq);
      expect(BigInt(revealed.seq)).toBeLessThan(BigInt(prompt.seq));
      expect(BigInt(revealed.stream_seq!)).toBeGreaterThan(BigInt(prompt.stream_seq!));
    } finally {
      await unsubscribe();
    }
  });
});

