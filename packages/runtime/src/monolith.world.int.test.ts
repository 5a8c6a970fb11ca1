import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DirectoryBlobStore, blobKeys } from "@mailstop/blob-store";
import { newId, newTransactionId } from "@mailstop/core";
import { ledgerState, recordAcceptedTransactions } from "@mailstop/db";
import { type TestServer, type TestS3, eventually, expectError, smtpTransport, startTestS3, startTestServer, testWorld, uniqueTag } from "@mailstop/testkit";

// The monolith in either world: on the embedded stand-ins everything lives under
// MAILSTOP_DATA_DIR; with the real engines the data is theirs. Both keep mail across a restart.

/**
 * A data directory (and, with the real engines, an S3 server) of the describe block's own, kept
 * across the restarts of its tests; `start` starts a monolith on them, as the same
 * installation started again would be. `startWithInbox` starts it with a project that has an
 * inbox tagged after `tag`: the first run, that a test stops before starting it again.
 */
function useRestartableMonolith(name: string) {
  let dataDir: string;
  let s3: TestS3 | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `mailstop-${name}-`));
    // With the real engines both starts share one S3 server, as they would share MinIO.
    if (testWorld() === "engines") s3 = await startTestS3();
  });
  afterAll(async () => {
    await s3?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = (): Promise<TestServer> => startTestServer({ mail: true, dataDir, ...(s3 ? { s3 } : {}) });
  const startWithInbox = async (tag: string) => {
    const server = await start();
    try {
      const project = await server.bootstrap();
      const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag(tag) } });
      return { server, project, inbox: inbox! };
    } catch (error) {
      await server.stop();
      throw error;
    }
  };
  return { start, startWithInbox };
}

describe("a restarted monolith", () => {
  const monolith = useRestartableMonolith("restart");

  it("keeps its projects, inboxes, messages, bodies and attachments", async () => {
    const { server: first, project, inbox } = await monolith.startWithInbox("kept");
    const inboxAddress = inbox.address;
    const subject = `Kept ${newId("message")}`;
    const pdf = Buffer.from("%PDF-1.7 kept across restarts");
    let messageId: string;
    try {
      await smtpTransport(first.smtp!.receiving).sendMail({
        from: "app@example.com",
        to: inboxAddress,
        subject,
        text: "Your code is 731902",
        attachments: [{ filename: "kept.pdf", content: pdf, contentType: "application/pdf" }],
      });
      const { data: waited } = await project.client.POST("/v1/messages/wait", { body: { inbox: inboxAddress, match: { subject_contains: "Kept" }, timeout_ms: 20_000, preview_chars: 200 } });
      if (waited?.status !== "matched") throw new Error(`no message: ${JSON.stringify(waited)}`);
      messageId = waited.message.id;
    } finally {
      await first.stop();
    }

    const second = await monolith.start();
    try {
      const client = second.client(project.apiKey);
      const { data: inboxes } = await client.GET("/v1/inboxes", { params: { query: { tag_prefix: inboxAddress.split("@")[0]!.slice(project.projectKey.length + 1) } } });
      expect(inboxes?.data.map((inbox) => inbox.address)).toEqual([inboxAddress]);
      const { data: message } = await client.GET("/v1/messages/{id}", { params: { path: { id: messageId } } });
      expect(message).toMatchObject({ id: messageId, subject, codes: ["731902"] });
      const body = await fetch(`${second.url}/v1/messages/${messageId}/body?format=text`, { headers: { authorization: `Bearer ${project.apiKey}` } });
      expect(await body.text()).toContain("Your code is 731902");
      const attachment = await fetch(message!.attachments[0]!.url, { headers: { authorization: `Bearer ${project.apiKey}` } });
      expect(Buffer.from(await attachment.arrayBuffer()).equals(pdf)).toBe(true);
    } finally {
      await second.stop();
    }
  });
});

describe("a monolith restarted after a crash that cut a parse", () => {
  const monolith = useRestartableMonolith("orphan");

  it("on PGlite, whose parse jobs lived in memory, parses at its start what the last run accepted and left open; on Redis the job is still queued, so the start requeues nothing", async () => {
    // What a crash after a 250 leaves: the raw message stored, its ledger row open, its job gone.
    const { server: first, project, inbox } = await monolith.startWithInbox("orphan");
    const subject = `Orphan ${newId("message")}`;
    const transaction = newTransactionId();
    try {
      const raw = Buffer.from(`From: app@example.com\r\nTo: ${inbox.address}\r\nSubject: ${subject}\r\n\r\nLeft open by a crash.\r\n`);
      const rawKey = blobKeys.raw(project.projectId, transaction);
      await first.running.context.blobs!.put(rawKey, raw);
      await recordAcceptedTransactions(first.db, [
        {
          id: transaction,
          kind: "received",
          size: raw.length,
          envelopeFrom: "app@example.com",
          acceptedAt: new Date(),
          deliveries: [{ project_id: project.projectId, project_key: project.projectKey, raw_key: rawKey, recipients: [{ address: inbox.address, inbox_id: inbox.id, sim: null }] }],
        },
      ]);
    } finally {
      await first.stop();
    }

    const second = await monolith.start();
    try {
      const inMemory = second.running.context.messaging!.parseJobsInMemory;
      expect(inMemory).toBe(testWorld() === "embedded");
      // Done (or at least queued) by the time the start returns, before the SMTP edge listened.
      expect((await ledgerState(second.db, transaction))?.requeues).toBe(inMemory ? 1 : 0);
      if (!inMemory) return;
      const client = second.client(project.apiKey);
      const stored = await eventually(
        async () => {
          const { data } = await client.GET("/v1/messages", { params: { query: { inbox: inbox.id } } });
          return data?.data.find((message) => message.subject === subject) ?? null;
        },
        { what: "the orphaned message parsed" },
      );
      expect(stored.subject).toBe(subject);
    } finally {
      await second.stop();
    }
  });
});

describe("signed downloads of the directory object store", () => {
  let server: TestServer;
  let store: DirectoryBlobStore;
  const KEY = "projects/prj_test/tx/t1/attachments/0";
  beforeAll(async () => {
    // Target all without S3_ENDPOINT: the directory store in both worlds (with the real
    // engines this is the mixed setting: PostgreSQL, no S3, no Redis).
    server = await startTestServer({ target: "all" });
    store = server.running.context.blobs as DirectoryBlobStore;
    await store.put(KEY, Buffer.from("attachment bytes"));
  });
  afterAll(() => server.stop());

  it("serves the object, with the signed type and file name, to anyone holding the URL", async () => {
    const url = await store.presignGet(KEY, 60, { filename: "report 1.pdf", contentType: "application/pdf" });
    expect(url.startsWith(`${server.url}/blobs/`)).toBe(true);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="report 1.pdf"');
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toBe("attachment bytes");
  });

  it("answers 403 forbidden in the error envelope for an altered URL", async () => {
    const url = new URL(await store.presignGet(KEY, 60, { filename: "report.pdf" }));
    url.searchParams.set("filename", "evil.html");
    const error = expectError(await fetchJson(url.toString()), { status: 403, code: "forbidden", retryable: false });
    expect(error.reason).toMatch(/signature/);
    const otherKey = new URL((await store.presignGet(KEY, 60)).replace("attachments/0", "raw.eml"));
    expectError(await fetchJson(otherKey.toString()), { status: 403, code: "forbidden", retryable: false });
  });

  it("answers 404 attachment_not_found when the signed object is gone", async () => {
    const url = await store.presignGet("projects/prj_test/tx/gone/attachments/0", 60);
    expectError(await fetchJson(url), { status: 404, code: "attachment_not_found", retryable: false });
  });

  it("answers 403 forbidden once the URL has expired", async () => {
    const url = await store.presignGet(KEY, -1);
    const error = expectError(await fetchJson(url), { status: 403, code: "forbidden", retryable: false });
    expect(error.reason).toMatch(/expired/);
  });
});

async function fetchJson(url: string): Promise<{ status: number; json: any }> {
  const response = await fetch(url);
  return { status: response.status, json: await response.json() };
}
