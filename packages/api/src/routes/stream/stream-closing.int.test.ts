import { type TestServer, TestEventStream, smtpTransport, useTestServer } from "@mailstop/testkit";

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
