import { connect } from "node:net";
import { sql } from "kysely";
import { newId } from "@mailstop/core";
import { eventually, useTestServer } from "@mailstop/testkit";

// How a stream closes when the server itself is at hand: in the integration and embedded worlds,
// not the fleet's (a *.in-process.int.test.ts file; the closes any client sees are in
// stream-closing.int.test.ts).

// It publishes on the server's own bus, and nginx's buffers would stand between the client and the waiter.
describe("a slow consumer", () => {
  const HEARTBEAT_S = 1;
  const server = useTestServer({ mail: true, env: { MAILSTOP_HEARTBEAT_S: String(HEARTBEAT_S) } });

  it("that stops reading is held back (frames wait in the database), then cut off with slow_consumer", async () => {
    const inbox = await server.createInbox();
    // A raw socket that reads the opening, then stops reading altogether.
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.write(
      `GET /stream/v1/inboxes/${inbox.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.apiKey}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    let received = "";
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        received += chunk.toString("utf8");
        if (received.includes("event: open")) {
          socket.off("data", onData);
          socket.pause();
          resolve();
        }
      };
      socket.on("data", onData);
    });

    // About 12 MB of frames: far more than the loopback socket buffers hold (about 4 MB here).
    const subject = "s".repeat(100_000);
    const ids = Array.from({ length: 120 }, () => newId("message"));
    const now = Date.now();
    for (let i = 0; i < ids.length; i += 40) {
      await server.db
        .insertInto("messages")
        .values(
          ids.slice(i, i + 40).map((id) => ({
            id,
            project_id: server.project.projectId,
            inbox_id: inbox.id,
            kind: "received" as const,
            raw_key: `raw/${id}`,
            size: 1,
            envelope_to: inbox.address,
            subject,
            received_at: new Date(now),
            visible_at: new Date(now),
            expires_at: new Date(now + 3_600_000),
            stream_seq: sql<string>`nextval('message_stream_seq')`,
          })),
        )
        .execute();
    }
    await server.running.context.messaging!.bus.publishArrival({ inbox_id: inbox.id, message_id: ids[ids.length - 1]!, seq: "0" });

    // Once the server has given up on it (it says so), read what it sent before it did. The
    // server holds the closed frame for a client that reads again within its grace.
    await eventually(async () => (server.logs().includes("event stream cut off: slow consumer") ? true : null), {
      timeoutMs: 30_000,
      what: "the server to cut the slow consumer off",
    });
    const closed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no closed frame within 10 s; got ${received.length} bytes`)), 10_000);
      const settle = () => (clearTimeout(timer), resolve());
      socket.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        // Only the new text and what may straddle it: scanning all of the megabytes on every
        // chunk would slow this reader down past the server's grace on a loaded machine.
        const seam = received.slice(-20) + text;
        received += text;
        if (seam.includes("event: closed")) settle();
      });
      socket.once("close", settle);
    });
    socket.resume();
    await closed;
    socket.destroy();
    const frames = received.match(/^event: message$/gm) ?? [];
    // Megabytes of frames: a failure shows how much arrived and how it ended, not all of it.
    const closedFrame = 'event: closed\ndata: {"reason":"slow_consumer"}';
    expect({ closed: received.includes(closedFrame), bytes: received.length, tail: received.slice(-300) }).toEqual({ closed: true, bytes: received.length, tail: expect.any(String) });
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.length).toBeLessThan(ids.length);
  });
});

// It stops its own server (the fleet's SIGTERM is tested in packages/runtime).
describe("shutting down", () => {
  const server = useTestServer({ mail: true });

  it("ends open streams, so the server stops instead of waiting on them", async () => {
    const inbox = await server.createInbox();
    const controller = new AbortController();
    const response = await fetch(`${server.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${server.apiKey}` }, signal: controller.signal });
    const body = response.text();
    const stopped = Date.now();
    await server.stop();
    expect(Date.now() - stopped).toBeLessThan(5000);
    expect(await body).toContain("event: open");
  });
});
