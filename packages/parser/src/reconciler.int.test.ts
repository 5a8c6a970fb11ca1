import { once } from "node:events";
import { blobKeys } from "@mailstop/blob-store";
import { RECONCILE_MIN_AGE_S, newId, newTransactionId } from "@mailstop/core";
import { ledgerState, recordAcceptedTransactions } from "@mailstop/db";
import { createRedis } from "@mailstop/messaging";
import { createLogger } from "@mailstop/logging";
import {
  type TestS3,
  type TestServer,
  eventually,
  insertMessageRows,
  runRedisUrl,
  sendOneRaw,
  startTestS3,
  startTestServer,
  uniqueRedisPrefix,
  uniqueTag,
  useTestServer,
} from "@mailstop/testkit";
import type { ParserDeps } from "./deps";
import { parserDepsOf } from "./parser-deps.fixture";
import { reconcileJob, reconcileOrphans } from "./reconcile.job";
import { sweepOrphansJob } from "./sweep-orphans.job";

const DAY_MS = 86_400_000;

describe("the accept ledger's reconciler", () => {
  let s3: TestS3;
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers.reverse()) await server.stop();
    await s3?.stop();
  });

  it("parses a transaction answered 250 whose parse job was deleted from Redis before any parser ran", async () => {
    s3 = await startTestS3();
    const prefix = uniqueRedisPrefix();
    const start = async (target: "api" | "smtp-edge" | "parser") => {
      const server = await startTestServer({ target, s3, env: { MAILSTOP_REDIS_PREFIX: prefix, MAILSTOP_RECONCILE_GRACE_S: "1" } });
      servers.push(server);
      return server;
    };
    // The fleet with its parser down (a deployment restarting): the job waits in Redis.
    const api = await start("api");
    const edge = await start("smtp-edge");
    const project = await api.bootstrap();
    const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("reconcile") } });
    const subject = `Lost job ${newId("message")}`;
    const reply = await sendOneRaw(edge.smtp!.receiving, inbox!.address, subject);
    expect(reply.code).toBe(250);
    const transaction = /as ([0-9a-z]{26})$/.exec(reply.text)![1]!;

    // Redis loses everything of this installation (a restart without persistence, a FLUSHALL).
    const connection = createRedis(runRedisUrl(), "command", createLogger({ level: "silent" }));
    if (connection.status !== "ready") await once(connection, "ready");
    try {
      expect(await connection.exists(`${prefix}:ingest:${transaction}`)).toBe(1);
      // The edge's job carries the connection, for the parser's authentication checks.
      const job = JSON.parse((await connection.hget(`${prefix}:ingest:${transaction}`, "data"))!);
      expect(job).toMatchObject({ client_address: expect.stringMatching(/127\.0\.0\.1$/), client_helo: expect.any(String) });
      const keys = await connection.keys(`${prefix}:*`);
      if (keys.length > 0) await connection.del(...keys);
      expect(await connection.exists(`${prefix}:ingest:${transaction}`)).toBe(0);
    } finally {
      connection.disconnect();
    }
    expect(await ledgerState(api.db, transaction)).toEqual({ state: "open", requeues: 0 });

    await start("parser");
    // Not before RECONCILE_MIN_AGE_S (15 s) after its 250, whatever the grace.
    await eventually(async () => ((await ledgerState(api.db, transaction))?.state === "done" ? true : null), { timeoutMs: 60_000, what: "the reconciled transaction done" });
    const rows = await api.db.selectFrom("messages").select("subject").where("inbox_id", "=", inbox!.id).execute();
    expect(rows).toEqual([{ subject }]);
    expect((await ledgerState(api.db, transaction))!.requeues).toBeGreaterThanOrEqual(1);
  });
});

describe("the reconciler's floor", () => {
  const server = useTestServer({ mail: true, project: false });
  // Deliveries whose raw source does not exist: the requeued parse finds nothing and closes the row.
  const deliveries = [{ project_id: "prj_x", project_key: "x", raw_key: "projects/prj_x/tx/x/raw.eml", recipients: [{ address: "x.t@mailstop.test", inbox_id: null, sim: null }] }];
  const row = (ageS: number) => ({ id: newTransactionId(), kind: "received" as const, size: 3, envelopeFrom: null, acceptedAt: new Date(Date.now() - ageS * 1000), deliveries });

  it("never takes a row younger than the edge's write deadline and its clean-up, whatever the grace: its transaction may still be answered 451", async () => {
    const young = row(RECONCILE_MIN_AGE_S - 3);
    const old = row(RECONCILE_MIN_AGE_S + 3);
    await recordAcceptedTransactions(server.db, [young, old]);
    // A one-second grace, as a test or a drill would set.
    const deps = parserDepsOf(server, { ...server.config, reconcileGraceSeconds: 1 });
    await reconcileJob(deps)();
    expect(await ledgerState(server.db, young.id)).toEqual({ state: "open", requeues: 0 });
    expect((await ledgerState(server.db, old.id))?.requeues).toBe(1);
  });

  it("at a start that follows a crash (parse jobs in memory), takes every open row accepted before the start at once, each once however many there are, and none accepted since", async () => {
    const startedAt = new Date(Date.now() - 2000);
    // More than one claim's batch (200).
    const beforeStart = Array.from({ length: 250 }, () => row(3));
    const sinceStart = row(1);
    await recordAcceptedTransactions(server.db, [...beforeStart, sinceStart]);
    expect(await reconcileOrphans(parserDepsOf(server), startedAt)).toBeGreaterThanOrEqual(250);
    for (const orphan of beforeStart) expect((await ledgerState(server.db, orphan.id))?.requeues).toBe(1);
    expect(await ledgerState(server.db, sinceStart.id)).toEqual({ state: "open", requeues: 0 });
  });
});

describe("the orphan sweep", () => {
  // The server's own scheduled sweep must not race the test's (it deleted the orphan, and the
  // folder put before its ledger row, before the test looked): it only sweeps what is older
  // than ten years. The test sweeps with the default day.
  const server = useTestServer({ mail: true, env: { MAILSTOP_ORPHAN_SWEEP_AGE_S: String(10 * 365 * 86_400) }, project: false });
  let deps: ParserDeps;
  beforeAll(() => {
    deps = parserDepsOf(server, { ...server.config, orphanSweepAgeSeconds: DAY_MS / 1000 });
  });

  it("deletes the folder of a day-old transaction nothing knows, and keeps those a ledger row or a message knows, and young ones", async () => {
    const project = await server.bootstrap();
    const old = Date.now() - 2 * DAY_MS;
    const put = async (transaction: string) => {
      await deps.blobs.put(blobKeys.raw(project.projectId, transaction), Buffer.from("raw"));
      await deps.blobs.put(blobKeys.attachment(project.projectId, transaction, 0), Buffer.from("attachment"));
      return transaction;
    };
    const orphan = await put(newTransactionId(old));
    const young = await put(newTransactionId());
    const open = await put(newTransactionId(old));
    const stored = await put(newTransactionId(old));
    const doneLongAgo = await put(newTransactionId(old));
    const ledgerRow = (id: string) => ({ id, kind: "received" as const, size: 3, envelopeFrom: null, acceptedAt: new Date(old), deliveries: [] });
    await recordAcceptedTransactions(server.db, [ledgerRow(open), ledgerRow(doneLongAgo)]);
    // Done two days ago, its copies all skipped (their inboxes deleted before the parse): nothing reads it.
    await server.db.updateTable("accepted_transactions").set({ state: "done", done_at: new Date(old) }).where("id", "=", doneLongAgo).execute();
    const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("sweep") } });
    const [message] = await insertMessageRows(server.db, inbox!, project.projectId, 1);
    await server.db.updateTable("messages").set({ raw_key: blobKeys.raw(project.projectId, stored) }).where("id", "=", message!).execute();

    expect(await sweepOrphansJob(deps)()).toBeGreaterThanOrEqual(2);
    const exists = async (transaction: string) => (await deps.blobs.stat(blobKeys.raw(project.projectId, transaction))) !== null;
    expect(await exists(orphan)).toBe(false);
    expect(await deps.blobs.stat(blobKeys.attachment(project.projectId, orphan, 0))).toBeNull();
    expect(await exists(doneLongAgo)).toBe(false);
    expect(await ledgerState(server.db, doneLongAgo)).toBeNull();
    expect(await exists(young)).toBe(true);
    expect(await exists(open)).toBe(true);
    expect(await exists(stored)).toBe(true);
  });

  it("never takes a folder younger than the edge's write deadline and its clean-up, whatever the age setting: its ledger row may not be committed yet", async () => {
    const project = await server.bootstrap();
    const put = async (transaction: string) => {
      await deps.blobs.put(blobKeys.raw(project.projectId, transaction), Buffer.from("raw"));
      return transaction;
    };
    const inFlight = await put(newTransactionId(Date.now() - (RECONCILE_MIN_AGE_S - 5) * 1000));
    const pastTheFloor = await put(newTransactionId(Date.now() - (RECONCILE_MIN_AGE_S + 5) * 1000));
    const sweep = sweepOrphansJob(parserDepsOf(server, { ...server.config, orphanSweepAgeSeconds: 1 }));

    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await deps.blobs.stat(blobKeys.raw(project.projectId, inFlight))).not.toBeNull();
    expect(await deps.blobs.stat(blobKeys.raw(project.projectId, pastTheFloor))).toBeNull();
  });
});
