import { sql } from "kysely";
import { newId } from "@mailstop/core";
import { TestEventStream, createFreshDatabase, dropDatabase, runServerUrl, useTestServer } from "@mailstop/testkit";

// A stream whose read fails: the test breaks a PostgreSQL database of its own (renames the
// messages table under an open stream), so it runs on the real engines only.

describe("a stream whose read fails", () => {
  let database: { name: string; url: string };
  beforeAll(async () => {
    // Its own database, so the table can be broken without touching other tests.
    database = await createFreshDatabase(runServerUrl(), "mailstop_stream_read_failed");
  });
  const server = useTestServer(() => ({ mail: true, databaseUrl: database.url }));
  afterAll(() => dropDatabase(runServerUrl(), database.name));

  it("gets an error frame with the envelope, then closed with read_failed", async () => {
    const inbox = await server.createInbox();
    const s = new TestEventStream(`${server.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    await s.next("open");
    await sql`alter table messages rename to messages_away`.execute(server.db);
    try {
      await server.running.context.messaging!.bus.publishArrival({ inbox_id: inbox.id, message_id: newId("message"), seq: "1" });
      const error = await s.next("error");
      expect(error.data).toEqual({ error: { code: "internal", reason: expect.any(String), retryable: true } });
      const closed = await s.until((frames) => frames.find((frame) => frame.event === "closed"), 5000, "a closed frame");
      expect(closed.data).toEqual({ reason: "read_failed" });
      expect(server.logs()).toContain("event stream read failed");
    } finally {
      s.close();
      await sql`alter table messages_away rename to messages`.execute(server.db);
    }
  });
});
