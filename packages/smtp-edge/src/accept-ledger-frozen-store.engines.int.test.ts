import { newId } from "@mailstop/core";
import { sendOneRaw, startTcpProxy, startTestS3, startTestServer, uniqueTag } from "@mailstop/testkit";

// The edge's accept under a frozen object store: the store is an s3rver behind a proxy the
// test freezes, in this process, so it runs on the real engines only.

describe("a frozen object store", () => {
  it(
    "gets 451 within the store deadline, not a DATA left unanswered by the clean-up of the refused put",
    async () => {
      const s3 = await startTestS3();
      const proxy = await startTcpProxy(s3.port);
      const endpoint = `http://127.0.0.1:${proxy.port}`;
      const server = await startTestServer({ mail: true, s3: { ...s3, endpoint, env: { ...s3.env, S3_ENDPOINT: endpoint } } });
      try {
        const project = await server.bootstrap();
        const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("frozen") } });
        if (!inbox) throw new Error("the inbox was not created");
        proxy.freeze();
        const started = Date.now();
        // The store deadline is 10 s; the reply must come well before the dialogue's own 30 s.
        const reply = await sendOneRaw(server.smtp!.receiving, inbox.address, `Frozen ${newId("message")}`, { messageId: `${newId("message")}@x.test`, replyWithinMs: 30_000 });
        expect(reply).toEqual({ code: 451, text: expect.stringMatching(/^4\.3\.0 /) });
        expect(Date.now() - started).toBeLessThan(25_000);
        expect(await server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).execute()).toEqual([]);
      } finally {
        // Not thawed: the held put would land while s3.stop() removes its directory (s3rver
        // then fails in this process with ENOENT). Closing the proxy drops it unsent.
        await proxy.close();
        await server.stop();
        await s3.stop();
      }
    },
    60_000,
  );
});
