import { type TestReceiver, eventually, useWebhookTestServer } from "@mailstop/testkit";
import { Mailstop, MailstopError, WebhookVerificationError, verifyWebhook } from "./index";

// The webhooks resource and verifyWebhook on a real delivery: the test event the server signs
// and sends to a real HTTP receiver on 127.0.0.2 (the one network the allow list admits). A
// database of its own in the integration world: every parser delivers its database's events.

const { server, receiver: startReceiver } = useWebhookTestServer("mailstop_sdk_webhooks");
let receiver: TestReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});

describe("webhooks", () => {
  it("covers create, get, list, update, rotateSecret, test, attempts and delete; verifyWebhook accepts the real signed test delivery", async () => {
    const mailstop = new Mailstop({ baseUrl: server.url, apiKey: server.apiKey });
    const created = await mailstop.webhooks.create({ url: `${receiver.origin}/hook`, events: ["message.received"], description: "sdk" });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await mailstop.webhooks.get(created.id)).url).toBe(`${receiver.origin}/hook`);
    expect((await mailstop.webhooks.list()).data.map((w) => w.id)).toContain(created.id);
    expect((await mailstop.webhooks.update(created.id, { description: "renamed" })).description).toBe("renamed");
    const rotated = await mailstop.webhooks.rotateSecret(created.id);
    expect(rotated.secret).not.toBe(created.secret);

    await mailstop.webhooks.test(created.id);
    const [delivery] = await receiver.waitFor(1, 30_000);
    if (delivery === undefined) throw new Error("no delivery arrived");
    // Both secrets sign during the overlap after a rotation: either verifies.
    for (const secret of [rotated.secret, created.secret]) {
      expect(verifyWebhook<{ type: string }>(delivery.body, delivery.headers as Record<string, string>, secret)).toMatchObject({ type: "webhook.test" });
    }
    expect(verifyWebhook(Buffer.from(delivery.body), new Headers(delivery.headers as Record<string, string>), rotated.secret)).toMatchObject({ type: "webhook.test" });
    // A changed body, or another endpoint's secret, does not verify.
    expect(() => verifyWebhook(delivery.body.replace("webhook.test", "webhook.tesT"), delivery.headers as Record<string, string>, rotated.secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(delivery.body, delivery.headers as Record<string, string>, `whsec_${Buffer.alloc(32, 7).toString("base64")}`)).toThrow(WebhookVerificationError);

    // The attempt is logged once the receiver's answer is recorded.
    const attempts = await eventually(async () => ((await mailstop.webhooks.attempts(created.id)).data.length > 0 ? mailstop.webhooks.attempts(created.id) : null), { what: "the logged attempt" });
    expect(attempts.data[0]).toMatchObject({ event_type: "webhook.test", response_status: 200 });
    expect(await mailstop.webhooks.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    const gone = await mailstop.webhooks.get(created.id).catch((cause: unknown) => cause);
    expect(gone).toBeInstanceOf(MailstopError);
    expect(gone).toMatchObject({ code: "webhook_not_found", retryable: false, status: 404 });
  });
});
