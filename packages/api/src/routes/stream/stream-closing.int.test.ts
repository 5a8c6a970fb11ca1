import { connect } from "node:net";
import { sql } from "kysely";
import { newId } from "@mailstop/core";
import {
  type TestServer,
  TestEventStream,
  describeInProcess,
  eventually,
  smtpTransport,
  useTestServer,
} from "@mailstop/testkit";

// Servers with short lifetimes, so every way a stream closes happens within a test.
const TOKEN_TTL_S = 2;
const MAX_DURATION_S = 3;

const opened: TestEventStream[] = [];
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

function stream(server: TestServer, path: string, headers: Record<string, string> = {}): TestEventStream {
  const s = new TestEventStream(`${server.url}${path}`, { headers });
  opened.push(s);
  return s;
}

describe("a stream closed by the server", () => {
  const server = useTestServer({ mail: true, env: { MAILSTOP_STREAM_TOKEN_TTL_S: String(TOKEN_TTL_S), MAILSTOP_STREAM_MAX_DURATION_S: String(MAX_DURATION_S) } });

  it("gets closed with token_expired when its token expires while it is open", async () => {
    const inbox = await server.createInbox();
    const { json } = await server.request("POST", `/v1/inboxes/${inbox.id}/stream-token`);
    const s = stream(server, new URL(json.stream_url).pathname + new URL(json.stream_url).search);
    await s.next("open");
    const closed = await s.next("closed", (TOKEN_TTL_S + 2) * 1000);
    expect(closed.data).toEqual({ reason: "token_expired" });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(json.expires_at) - 50);
    // The client reconnects with the same, now expired, token and is refused.
    expect(await s.refused()).toBe(401);
  });

  it("gets closed with max_duration, and a real EventSource reconnects after it without a gap or a duplicate", async () => {
    const inbox = await server.createInbox();
    const s = stream(server, `/stream/v1/inboxes/${inbox.id}/events`, { authorization: `Bearer ${server.apiKey}` });
    await s.next("open");
    // Mail keeps arriving across the close and the reconnect.
    const sent: string[] = [];
    const transport = smtpTransport(server.smtpPort, { pool: true });
    const sendOne = async () => {
      const subject = `n${sent.length}`;
      await transport.sendMail({ from: "a@acme.example", to: inbox.address, subject, text: "x" });
      sent.push(subject);
      return subject;
    };
    // Each heard before the next is sent (after a reconnect if one falls between), until the server closes the stream.
    const heard = (subject: string) => s.until((frames) => frames.some((frame) => frame.event === "message" && frame.data.subject === subject), 15_000, subject);
    const deadline = Date.now() + (MAX_DURATION_S + 20) * 1000;
    while (s.framesOf("closed").length === 0) {
      if (Date.now() > deadline) throw new Error("the stream was not closed at its maximum duration");
      await heard(await sendOne());
    }
    // One sent while the client waits out the retry delay, then live ones on the new connection.
    await sendOne();
    await s.until(() => s.connections >= 2, 15_000, "the reconnect");
    for (let i = 0; i < 2; i++) await heard(await sendOne());
    transport.close();
    await s.until((frames) => frames.filter((f) => f.event === "message").length >= sent.length, 10_000, "every message");
    expect(s.framesOf("closed").map((frame) => frame.data)).toContainEqual({ reason: "max_duration" });
    expect(s.connections).toBeGreaterThanOrEqual(2);
    // The reconnect resumed from the last cursor (the client sent Last-Event-ID).
    expect(s.framesOf("open").slice(1).every((frame) => frame.data.resumed_from !== null)).toBe(true);
    expect(s.framesOf("message").map((frame) => frame.data.subject)).toEqual(sent);
  });
});

describeInProcess("a slow consumer", "it publishes on the server's own bus, and nginx's buffers would stand between the client and the waiter", () => {
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

describeInProcess("shutting down", "it stops its own server (the fleet's SIGTERM is tested in packages/runtime)", () => {
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
