import { readdir } from "node:fs/promises";
import { newId } from "@mailstop/core";
import {
  SmtpDialogue,
  sendOneRaw,
  type TestProject,
  type TestRedis,
  eventually,
  startTestRedis,
  startTestS3,
  startTestServer,
  uniqueTag,
  useTestServer,
} from "@mailstop/testkit";

/** Raw sources the object store holds for a project (s3rver keeps objects as files). */
async function rawObjects(directory: string, projectId: string): Promise<string[]> {
  const files = await readdir(directory, { recursive: true }).catch(() => [] as string[]);
  return files.filter((file) => file.includes(`projects/${projectId}/tx/`) && file.endsWith("raw.eml._S3rver_object"));
}

const send = (port: number, to: string, subject: string) => sendOneRaw(port, to, subject);

async function createInbox(project: TestProject) {
  const { data, error } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("durable") } });
  if (error || !data) throw new Error(JSON.stringify(error));
  return data;
}

describe("durability: 250 only once the raw source is stored and the transaction is in the accept ledger", () => {
  it("answers 451 4.3.0 with nothing stored while the object store is down; the retry after recovery is stored once", async () => {
    const s3 = await startTestS3();
    const server = await startTestServer({ mail: true, s3 });
    let restarted: Awaited<ReturnType<typeof startTestS3>> | undefined;
    try {
      const project = await server.bootstrap();
      const inbox = await createInbox(project);
      const subject = `S3 outage ${newId("message")}`;

      await s3.stop({ keepData: true });
      const refused = await send(server.smtp!.receiving, inbox.address, subject);
      expect(refused).toEqual({ code: 451, text: expect.stringMatching(/^4\.3\.0 /) });

      restarted = await startTestS3({ port: s3.port, directory: s3.directory });
      const accepted = await send(server.smtp!.receiving, inbox.address, subject);
      expect(accepted.code).toBe(250);
      await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).executeTakeFirst(), { what: "the retried message" });
      expect(await server.db.selectFrom("messages").select("subject").where("inbox_id", "=", inbox.id).execute()).toEqual([{ subject }]);
      expect(await rawObjects(s3.directory, project.projectId)).toHaveLength(1);
    } finally {
      await server.stop();
      await restarted?.stop();
    }
  });

  it("answers RCPT with 451 4.3.0 and AUTH with 454 4.7.0, never a bounce or internal text, while the database is unreachable", async () => {
    const server = await startTestServer({ mail: true });
    try {
      const project = await server.bootstrap();
      const inbox = await createInbox(project);
      // The edge's pool is gone: every query fails as with the database down.
      await server.db.destroy();
      const { dialogue } = await SmtpDialogue.open(server.smtp!.receiving);
      await dialogue.command("EHLO test.example");
      await dialogue.command("MAIL FROM:<a@b.test>");
      const rcpt = await dialogue.command(`RCPT TO:<${inbox.address}>`);
      dialogue.close();
      expect(rcpt).toEqual({ code: 451, text: "4.3.0 Temporary local problem, please retry" });

      const capture = await SmtpDialogue.open(server.smtp!.capture);
      await capture.dialogue.command("EHLO app.example");
      const auth = await capture.dialogue.command(`AUTH PLAIN ${Buffer.from(`\0${project.smtp.username}\0${project.smtp.password}`).toString("base64")}`);
      capture.dialogue.close();
      expect(auth).toEqual({ code: 454, text: "4.7.0 Temporary authentication failure, please retry" });
    } finally {
      await server.stop();
    }
  });

  describe("with Redis down", () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    const server = useTestServer(() => ({ mail: true, env: { REDIS_URL: redis.url, MAILSTOP_RECONCILE_GRACE_S: "1" }, project: false }));
    afterAll(() => redis.kill());

    it("answers 250 once the accept ledger has the transaction, and the reconciler parses it, once, when Redis is back", async () => {
      const project = await server.bootstrap();
      const inbox = await createInbox(project);
      const subject = `Redis outage ${newId("message")}`;

      await redis.kill();
      // The parse job cannot be queued; the ledger row in PostgreSQL is the promise behind the 250.
      const accepted = await send(server.smtp!.receiving, inbox.address, subject);
      expect(accepted).toEqual({ code: 250, text: expect.stringMatching(/^2\.0\.0 Ok: queued as /) });
      expect(await rawObjects(server.s3!.directory, project.projectId)).toHaveLength(1);

      // Redis comes back empty (no persistence): the job is gone, the reconciler queues it again.
      await redis.restart();
      await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).executeTakeFirst(), {
        timeoutMs: 30_000,
        what: "the message parsed from the accept ledger",
      });
      const rows = await server.db.selectFrom("messages").select(["subject", "raw_key"]).where("inbox_id", "=", inbox.id).execute();
      expect(rows).toEqual([{ subject, raw_key: expect.stringContaining(`projects/${project.projectId}/tx/`) }]);
    });
  });
});
