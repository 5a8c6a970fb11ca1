import { eventually, smtpTransport, startTestServer, uniqueTag } from "@mailstop/testkit";

// Mixed settings: a monolith given only DATABASE_URL runs on PostgreSQL and the other
// stand-ins (in-process messaging, a directory store). It needs a PostgreSQL to name, so it
// runs on the real engines only.

describe("mixed settings", () => {
  it("a monolith given only DATABASE_URL receives mail on the other stand-ins", async () => {
    const server = await startTestServer({ target: "all" });
    try {
      expect(server.running.context.messaging?.kind).toBe("in-process");
      const project = await server.bootstrap();
      const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("mixed") } });
      await smtpTransport(server.smtp!.receiving).sendMail({ from: "app@example.com", to: inbox!.address, subject: "Mixed", text: "hello" });
      await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox!.id).executeTakeFirst(), { what: "the message" });
    } finally {
      await server.stop();
    }
  });
});
