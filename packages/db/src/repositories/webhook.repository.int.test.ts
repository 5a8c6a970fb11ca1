import { newId } from "@mailstop/core";
import { eventually } from "@mailstop/testkit";
import { sql } from "kysely";
import type { Db } from "../index";
import { useRepositoryDatabase } from "./repository-database.fixture";
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDelivery,
  deleteWebhook,
  dueDeliveries,
  findWebhook,
  insertWebhook,
  listWebhookAttempts,
  raiseWebhookEvent,
  recordAttempt,
  rotateWebhookSecret,
  updateWebhook,
} from "./webhook.repository";

const suite = useRepositoryDatabase("mailstop_webhooks", ["hooks", "other"]);
const [projectId, otherProjectId] = [suite.projectId("hooks"), suite.projectId("other")];
let db: Db;
beforeAll(() => {
  db = suite.db;
});

const endpoint = (events: Parameters<typeof insertWebhook>[1]["events"], owner = projectId) =>
  insertWebhook(db, { id: newId("webhook"), projectId: owner, url: "http://127.0.0.1:1/hook", events, description: null, secretSealed: "sealed-1" });

const attempt = (n: number, ok: boolean, next: Date | null): AttemptRecord => ({
  id: newId("webhookAttempt"),
  attempt: n,
  ok,
  responseStatus: ok ? 200 : 500,
  responseBody: ok ? "ok" : "down",
  error: ok ? null : "http_500",
  durationMs: 3,
  attemptedAt: new Date(),
  nextAttemptAt: next,
});

async function claimed(eventId: string, webhookId: string): Promise<ClaimedDelivery> {
  const delivery = await claimDelivery(db, { eventId, webhookId }, 30_000);
  if (delivery === null) throw new Error(`delivery ${eventId} to ${webhookId} was not claimable`);
  return delivery;
}

describe("raiseWebhookEvent (the outbox)", () => {
  it("records one delivery per enabled endpoint of the project subscribed to the type, once however often it is raised", async () => {
    const subscribed = await endpoint(["domain.verified"]);
    await endpoint(["message.received"]);
    const disabled = await endpoint(["domain.verified"]);
    await updateWebhook(db, projectId, disabled.id, { enabled: false });
    const foreign = await endpoint(["domain.verified"], otherProjectId);

    const event = { projectId, eventId: newId("webhookEvent"), type: "domain.verified" as const, body: "{}" };
    expect(await raiseWebhookEvent(db, event)).toEqual([{ eventId: event.eventId, webhookId: subscribed.id }]);
    expect(await raiseWebhookEvent(db, event)).toEqual([]);
    expect((await dueDeliveries(db, 100)).filter((d) => d.eventId === event.eventId)).toEqual([{ eventId: event.eventId, webhookId: subscribed.id }]);
    expect((await dueDeliveries(db, 100)).some((d) => d.webhookId === foreign.id)).toBe(false);
  });

  it("rolls back with the transaction that raised it", async () => {
    const hook = await endpoint(["domain.verified"]);
    const eventId = newId("webhookEvent");
    await expect(
      db.transaction().execute(async (trx) => {
        await raiseWebhookEvent(trx, { projectId, eventId, type: "domain.verified", body: "{}" });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await claimDelivery(db, { eventId, webhookId: hook.id }, 30_000)).toBeNull();
  });

  it("a test event goes to the one endpoint named, subscribed or not", async () => {
    const hook = await endpoint(["message.received"]);
    const eventId = newId("webhookEvent");
    expect(await raiseWebhookEvent(db, { projectId, eventId, type: "webhook.test", body: "{}", onlyWebhookId: hook.id })).toEqual([{ eventId, webhookId: hook.id }]);
  });
});

describe("claimDelivery and recordAttempt", () => {
  it("a claimed delivery is not claimed again until its attempt is recorded; a failure reschedules it, a success ends it", async () => {
    const hook = await endpoint(["domain.verified"]);
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}" });
    const first = await claimed(eventId, hook.id);
    expect(first).toMatchObject({ eventId, eventType: "domain.verified", body: "{}", attempts: 0, webhook: { id: hook.id } });
    expect(await claimDelivery(db, { eventId, webhookId: hook.id }, 30_000)).toBeNull();

    await recordAttempt(db, first, "signed body", attempt(1, false, new Date(Date.now() - 1)), 10);
    const second = await claimed(eventId, hook.id);
    expect(second).toMatchObject({ attempts: 1, body: "signed body" });
    await recordAttempt(db, second, "signed body", attempt(2, true, null), 10);
    expect(await claimDelivery(db, { eventId, webhookId: hook.id }, 30_000)).toBeNull();

    const log = await listWebhookAttempts(db, projectId, hook.id, { beforeId: null, limit: 10 });
    expect(log.map((row) => [row.attempt, row.status, row.response_status])).toEqual([
      [2, "succeeded", 200],
      [1, "failed", 500],
    ]);
    expect(await listWebhookAttempts(db, otherProjectId, hook.id, { beforeId: null, limit: 10 })).toEqual([]);
  });

  it("a retry not yet due is not claimable", async () => {
    const hook = await endpoint(["domain.verified"]);
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}" });
    await recordAttempt(db, await claimed(eventId, hook.id), "{}", attempt(1, false, new Date(Date.now() + 60_000)), 10);
    expect(await claimDelivery(db, { eventId, webhookId: hook.id }, 30_000)).toBeNull();
  });

  it("disables the endpoint after `disableAfter` events in a row spent their attempts; a success in between resets the streak", async () => {
    const hook = await endpoint(["domain.verified"]);
    const exhaust = async () => {
      const eventId = newId("webhookEvent");
      await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
      await recordAttempt(db, await claimed(eventId, hook.id), "{}", attempt(1, false, null), 2);
    };
    await exhaust();
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
    await recordAttempt(db, await claimed(eventId, hook.id), "{}", attempt(1, true, null), 2);
    await exhaust();
    expect(await findWebhook(db, projectId, hook.id)).toMatchObject({ enabled: true, disabledReason: null });
    await exhaust();
    expect(await findWebhook(db, projectId, hook.id)).toMatchObject({ enabled: false, disabledReason: "failing" });

    expect(await updateWebhook(db, projectId, hook.id, { enabled: true })).toMatchObject({ enabled: true, disabledReason: null });
    await exhaust();
    expect(await findWebhook(db, projectId, hook.id)).toMatchObject({ enabled: true });
  });
});

describe("recordAttempt, many at once", () => {
  it("the final attempts of events raised together for one endpoint all commit: none deadlocks on the endpoint's row", async () => {
    const hook = await endpoint(["domain.verified"]);
    const deliveries = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const eventId = newId("webhookEvent");
        await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
        return claimed(eventId, hook.id);
      }),
    );
    // Each transaction inserts its attempt (a foreign key to the endpoint) and then locks the
    // endpoint to count the failure; all at once, as the fleet's parsers finish them.
    await Promise.all(deliveries.map((delivery) => recordAttempt(db, delivery, "{}", attempt(1, false, null), 100)));
    expect(await db.selectFrom("webhooks").select("failing_streak").where("id", "=", hook.id).executeTakeFirstOrThrow()).toEqual({ failing_streak: 8 });
  });
});

describe("deleteWebhook", () => {
  /** Statements of this database waiting for a row lock now. */
  const waitingOnLocks = async () =>
    (await sql<{ query: string }>`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)).rows;

  it("waits for an attempt being recorded rather than deadlocking with it, then takes the endpoint, its deliveries and attempts", async () => {
    const hook = await endpoint(["domain.verified"]);
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
    const delivery = await claimed(eventId, hook.id);
    let deleted: Promise<boolean> | undefined;
    await db.transaction().execute(async (trx) => {
      // The attempt's transaction holds its delivery row (recordAttempt's first write) when the
      // DELETE arrives; its attempt row, whose foreign key locks the endpoint's row, comes after.
      await trx.selectFrom("webhook_deliveries").select("event_id").where("event_id", "=", eventId).forUpdate().execute();
      deleted = deleteWebhook(db, projectId, hook.id);
      await eventually(async () => ((await waitingOnLocks()).some(({ query }) => query.startsWith("delete")) ? true : null), { what: "the DELETE waiting on the delivery row" });
      await recordAttempt(trx, delivery, "{}", attempt(1, false, new Date(Date.now() + 60_000)), 100);
    });
    expect(await deleted).toBe(true);
    expect(await findWebhook(db, projectId, hook.id)).toBeNull();
    const left = async (table: "webhook_deliveries" | "webhook_attempts") => db.selectFrom(table).select("webhook_id").where("webhook_id", "=", hook.id).execute();
    expect([await left("webhook_deliveries"), await left("webhook_attempts")]).toEqual([[], []]);
  });

  it("leaves nothing for an attempt that was out when the endpoint went: recording it is a no-op, not a foreign-key error", async () => {
    const hook = await endpoint(["domain.verified"]);
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
    const delivery = await claimed(eventId, hook.id);
    expect(await deleteWebhook(db, projectId, hook.id)).toBe(true);
    await recordAttempt(db, delivery, "{}", attempt(1, true, null), 100);
    expect(await db.selectFrom("webhook_attempts").select("id").where("webhook_id", "=", hook.id).execute()).toEqual([]);
  });

  it("leaves another project's endpoint and its deliveries as they are", async () => {
    const foreign = await endpoint(["domain.verified"], otherProjectId);
    const eventId = newId("webhookEvent");
    await raiseWebhookEvent(db, { projectId: otherProjectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: foreign.id });
    expect(await deleteWebhook(db, projectId, foreign.id)).toBe(false);
    expect(await findWebhook(db, otherProjectId, foreign.id)).not.toBeNull();
    expect(await db.selectFrom("webhook_deliveries").select("event_id").where("webhook_id", "=", foreign.id).execute()).toEqual([{ event_id: eventId }]);
  });
});

describe("rotateWebhookSecret", () => {
  it("keeps the old secret beside the new one until the overlap ends; another project's endpoint is untouched", async () => {
    const hook = await endpoint(["domain.verified"]);
    const until = new Date(Date.now() + 86_400_000);
    expect(await rotateWebhookSecret(db, otherProjectId, hook.id, "sealed-2", until)).toBeNull();
    const rotated = await rotateWebhookSecret(db, projectId, hook.id, "sealed-2", until);
    expect(rotated).toMatchObject({ secretSealed: "sealed-2", previousSecretSealed: "sealed-1", previousSecretUntil: until });
  });
});
