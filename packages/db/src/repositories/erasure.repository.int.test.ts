import { captureTag, newId } from "@mailstop/core";
import { insertMessageRows } from "@mailstop/testkit";
import type { Db } from "../index";
import { eraseAddress } from "./erasure.repository";
import { ensureInbox } from "./inbox.repository";
import { recordAcceptedTransactions } from "./ledger.repository";
import { reapMessages } from "./reaper.repository";
import { useRepositoryDatabase } from "./repository-database.fixture";
import { type AttemptRecord, claimDelivery, insertWebhook, recordAttempt } from "./webhook.repository";

// What eraseAddress reaches besides the messages themselves (the route's tests cover those):
// webhook deliveries and their attempts, including an attempt in flight while it runs; the
// reaper's share; capture inboxes; the accept ledger.

const suite = useRepositoryDatabase("mailstop_erasure", ["erasure", "others"]);
const [projectId, otherProjectId] = [suite.projectId("erasure"), suite.projectId("others")];
let db: Db;
beforeAll(() => {
  db = suite.db;
});

let counter = 0;
const person = () => `Person.${++counter}-${newId("message").slice(-6)}@Example.com`;

async function inbox(tag: string, labels: Record<string, string> = {}, owner = projectId) {
  const { inbox: created } = await ensureInbox(db, newId("inbox"), {
    projectId: owner,
    domainId: null,
    tag,
    address: `${owner}.${tag}@mailstop.test`.toLowerCase(),
    labels,
    retentionSeconds: 3600,
  });
  return created;
}

/** A message to `address` with one delivery to a new endpoint, in `state`, holding `body`. */
async function messageWithDelivery(address: string, state: "pending" | "succeeded") {
  const box = await inbox(`box-${++counter}`);
  const [messageId] = await insertMessageRows(db, { id: box.id, address }, projectId, 1);
  const webhook = await insertWebhook(db, { id: newId("webhook"), projectId, url: "http://127.0.0.2:9/hook", events: ["message.received"], description: null, secretSealed: "sealed" });
  const eventId = newId("webhookEvent");
  await db
    .insertInto("webhook_deliveries")
    .values({ event_id: eventId, webhook_id: webhook.id, project_id: projectId, event_type: "message.received", subject_id: messageId!, body: `{"to":"${address}"}`, state, attempts: 1 })
    .execute();
  await db
    .insertInto("webhook_attempts")
    .values({ id: newId("webhookAttempt"), webhook_id: webhook.id, project_id: projectId, event_id: eventId, event_type: "message.received", attempt: 1, status: "failed", response_status: 500, response_body: `echo ${address}`, error: "http_500", duration_ms: 1, attempted_at: new Date(), next_attempt_at: null })
    .execute();
  return { messageId: messageId!, webhookId: webhook.id, eventId };
}

const delivery = (eventId: string) => db.selectFrom("webhook_deliveries").selectAll().where("event_id", "=", eventId).executeTakeFirst();
const attemptsOf = (eventId: string) => db.selectFrom("webhook_attempts").selectAll().where("event_id", "=", eventId).orderBy("attempt").execute();

const attempt = (n: number, responseBody: string): AttemptRecord => ({
  id: newId("webhookAttempt"),
  attempt: n,
  ok: false,
  responseStatus: 500,
  responseBody,
  error: "http_500",
  durationMs: 2,
  attemptedAt: new Date(),
  nextAttemptAt: new Date(Date.now() + 3_600_000),
});

describe("eraseAddress and webhook deliveries", () => {
  it("drops the stored body of every delivery of an erased message, makes a pending one due at once, and clears its attempts' answers", async () => {
    const address = person();
    const pending = await messageWithDelivery(address, "pending");
    const done = await messageWithDelivery(address, "succeeded");
    await db.updateTable("webhook_deliveries").set({ next_attempt_at: new Date(Date.now() + 3_600_000) }).where("event_id", "=", pending.eventId).execute();

    expect((await eraseAddress(db, projectId, address.toLowerCase())).messagesErased).toBe(2);

    const [stillPending, finished] = [await delivery(pending.eventId), await delivery(done.eventId)];
    expect(stillPending).toMatchObject({ body: null, state: "pending" });
    expect(stillPending!.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(finished).toMatchObject({ body: null, state: "succeeded" });
    for (const { eventId } of [pending, done]) expect((await attemptsOf(eventId)).map((row) => row.response_body)).toEqual([null]);
  });

  it("an attempt in flight when the erasure commits writes back neither the body it sent nor the receiver's answer", async () => {
    const address = person();
    const inFlight = await messageWithDelivery(address, "pending");
    const claimed = await claimDelivery(db, { eventId: inFlight.eventId, webhookId: inFlight.webhookId }, 30_000);
    expect(claimed).not.toBeNull();

    await eraseAddress(db, projectId, address.toLowerCase());
    await recordAttempt(db, claimed!, `{"to":"${address}"}`, attempt(2, `echo ${address}`), 10);

    expect(await delivery(inFlight.eventId)).toMatchObject({ body: null, attempts: 2, state: "pending" });
    const attempts = await attemptsOf(inFlight.eventId);
    expect(attempts.map((row) => [row.attempt, row.response_body])).toEqual([
      [1, null],
      [2, null],
    ]);
  });

  it("a live message's attempt keeps its body and answer (the guard looks at the subject, not at every row)", async () => {
    const address = person();
    const live = await messageWithDelivery(address, "pending");
    const claimed = await claimDelivery(db, { eventId: live.eventId, webhookId: live.webhookId }, 30_000);
    await recordAttempt(db, claimed!, "sent body", attempt(2, "answer"), 10);
    expect(await delivery(live.eventId)).toMatchObject({ body: "sent body" });
    expect((await attemptsOf(live.eventId)).map((row) => row.response_body)).toEqual([`echo ${address}`, "answer"]);
  });

  it("the reaper deletes a reaped message's finished deliveries and leaves a pending one to be dropped by its next attempt", async () => {
    const address = person();
    const pending = await messageWithDelivery(address, "pending");
    const done = await messageWithDelivery(address, "succeeded");
    // The pending one is due at once, for the caller to dispatch; the finished one is not.
    expect((await eraseAddress(db, projectId, address.toLowerCase())).dueDeliveries).toEqual([{ eventId: pending.eventId, webhookId: pending.webhookId }]);
    while ((await reapMessages(db, 500)) > 0);
    expect(await delivery(done.eventId)).toBeUndefined();
    expect(await delivery(pending.eventId)).toMatchObject({ state: "pending", body: null });
  });
});

describe("eraseAddress and capture inboxes", () => {
  it("deletes the project's capture inboxes named after the address (tag or labels.recipient), never a user's inbox or another project's", async () => {
    const address = person();
    const byTag = await inbox(captureTag(address)!, { recipient: address });
    const byLabel = await inbox(`capture.example.com.other-${counter}`, { recipient: address.toUpperCase() });
    const usersOwn = await inbox(`mine-${counter}`, { recipient: address });
    const theirs = await inbox(captureTag(address)!, { recipient: address }, otherProjectId);
    await insertMessageRows(db, { id: byTag.id, address }, projectId, 2);

    const erased = await eraseAddress(db, projectId, address.toLowerCase());

    expect(erased).toEqual({ messagesErased: 2, captureInboxesDeleted: 2, dueDeliveries: [] });
    const left = await db.selectFrom("inboxes").select("id").where("id", "in", [byTag.id, byLabel.id, usersOwn.id, theirs.id]).execute();
    expect(left.map((row) => row.id).sort()).toEqual([usersOwn.id, theirs.id].sort());
    expect(await db.selectFrom("messages").select("id").where("inbox_id", "=", byTag.id).execute()).toEqual([]);
  });
});

describe("eraseAddress and the accept ledger", () => {
  it("removes the address from the project's finished rows (sender and recipients), keeps other projects' recipients and every open row", async () => {
    const address = person();
    const delivery = (project: string, recipients: string[]) => ({
      project_id: project,
      project_key: "k",
      raw_key: `projects/${project}/tx/x/raw.eml`,
      recipients: recipients.map((recipient) => ({ address: recipient, inbox_id: null, sim: null })),
    });
    const [done, open, elsewhere] = [newId("message"), newId("message"), newId("message")];
    const row = (id: string, deliveries: ReturnType<typeof delivery>[]) => ({ id, kind: "captured" as const, size: 1, envelopeFrom: address, acceptedAt: new Date(), deliveries });
    await recordAcceptedTransactions(db, [
      row(done, [delivery(projectId, [address.toUpperCase(), "keep@example.com"]), delivery(otherProjectId, [address])]),
      row(open, [delivery(projectId, [address])]),
      row(elsewhere, [delivery(otherProjectId, [address])]),
    ]);
    await db.updateTable("accepted_transactions").set({ state: "done", done_at: new Date() }).where("id", "in", [done, elsewhere]).execute();

    await eraseAddress(db, projectId, address.toLowerCase());

    const rows = await db.selectFrom("accepted_transactions").select(["id", "envelope_from", "deliveries"]).where("id", "in", [done, open, elsewhere]).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(done)!.envelope_from).toBeNull();
    expect(byId.get(done)!.deliveries.map((d) => d.recipients.map((r) => r.address))).toEqual([["keep@example.com"], [address]]);
    expect(byId.get(open)).toMatchObject({ envelope_from: address, deliveries: [delivery(projectId, [address])] });
    expect(byId.get(elsewhere)).toMatchObject({ envelope_from: address });
  });
});
