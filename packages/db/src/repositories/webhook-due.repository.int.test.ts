import { newId } from "@mailstop/core";
import { useRepositoryDatabase } from "./repository-database.fixture";
import { claimDelivery, insertWebhook, msUntilNextDelivery, raiseWebhookEvent, recordAttempt } from "./webhook.repository";

// When the relay next has work (msUntilNextDelivery), on a database of its own: every pending
// delivery of the database counts, as it does for the relay.
const suite = useRepositoryDatabase("mailstop_webhook_due", ["hooks"]);
const projectId = suite.projectId("hooks");

async function raised(): Promise<{ eventId: string; webhookId: string }> {
  const hook = await insertWebhook(suite.db, { id: newId("webhook"), projectId, url: "http://127.0.0.1:1/hook", events: ["domain.verified"], description: null, secretSealed: "sealed-1" });
  const eventId = newId("webhookEvent");
  await raiseWebhookEvent(suite.db, { projectId, eventId, type: "domain.verified", body: "{}", onlyWebhookId: hook.id });
  return { eventId, webhookId: hook.id };
}

const failedAttempt = (next: Date) => ({
  id: newId("webhookAttempt"),
  attempt: 1,
  ok: false,
  responseStatus: 500,
  responseBody: "down",
  error: "http_500",
  durationMs: 3,
  attemptedAt: new Date(),
  nextAttemptAt: next,
});

describe("msUntilNextDelivery", () => {
  it("is null with no pending delivery, and with pending deliveries all due now (the relay has just queued those)", async () => {
    expect(await msUntilNextDelivery(suite.db)).toBeNull();
    await raised();
    expect(await msUntilNextDelivery(suite.db)).toBeNull();
  });

  it("is the time until a claim lapses (its worker may have died), then until a retry is due, whichever comes first", async () => {
    const delivery = await raised();
    const claimed = await claimDelivery(suite.db, delivery, 40_000);
    const untilLapse = await msUntilNextDelivery(suite.db);
    expect(untilLapse).toBeGreaterThan(30_000);
    expect(untilLapse).toBeLessThanOrEqual(40_000);

    await recordAttempt(suite.db, claimed!, "{}", failedAttempt(new Date(Date.now() + 20_000)), null);
    const untilRetry = await msUntilNextDelivery(suite.db);
    expect(untilRetry).toBeGreaterThan(10_000);
    expect(untilRetry).toBeLessThanOrEqual(20_000);
  });
});
