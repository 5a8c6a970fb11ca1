import { type Server, type Socket, createServer } from "node:net";
import { newId } from "@mailstop/core";
import { type TcpProxy, type TestDns, eventually, freePort, smtpTransport, startTcpProxy, startTestDns, uniqueTag, useTestServer } from "@mailstop/testkit";
import { SPAMD_START_DEADLINE_MS, type TestSpamd, startTestSpamd } from "./spamd.fixture";
import { SPAMD_DEADLINE_MS, SPAMD_MAX_REPLY_BYTES, SpamdError, spamdPing, spamdReport } from "./spamd-client";

// Debian's spamd, started by the suite on a free loopback port (.ci/run installs it). The
// parser reaches it through a proxy the tests freeze (spamd accepts and never answers) or
// sever (spamd is down) to see the check give `error` and the message stored all the same.
const GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X";
const ORDINARY = "Hi Sam,\n\nthe minutes of Tuesday's meeting are below. We agreed to move the review to Thursday at ten.\n\nSee you then,\nAlex\n";

let spamd: TestSpamd;
let proxy: TcpProxy;
let dns: TestDns;
beforeAll(async () => {
  [spamd, dns] = await Promise.all([startTestSpamd(), startTestDns()]);
  proxy = await startTcpProxy(spamd.port);
}, SPAMD_START_DEADLINE_MS + 10_000);
afterAll(async () => {
  await proxy?.close();
  await Promise.all([spamd?.stop(), dns?.stop()]);
});

/** A loopback server that does `answer` with each connection (nothing: it accepts and stays silent). */
async function fakeSpamd(answer: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => socket.destroy());
    socket.on("close", () => sockets.delete(socket));
    answer(socket);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const source = (body: string) => Buffer.from(["From: alex@mailer.example", "To: sam@mailstop.test", "Subject: Minutes", `Message-ID: <${newId("message")}@mailer.example>`, `Date: ${new Date().toUTCString()}`, "", body].join("\r\n"));

async function failsWithin<T>(promise: Promise<T>, ms: number): Promise<SpamdError> {
  const started = Date.now();
  const error = await promise.then(
    () => new Error("expected a SpamdError"),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(SpamdError);
  expect(Date.now() - started).toBeLessThan(ms);
  return error as SpamdError;
}

describe("the spamd client against Debian's spamd", () => {
  it("is answered PONG, and REPORTs GTUBE as spam with the GTUBE rule and an ordinary message as ham", async () => {
    await spamdPing(spamd);
    const spam = await spamdReport(spamd, source(`${GTUBE}\r\n`));
    expect(spam.isSpam).toBe(true);
    expect(spam.score).toBeGreaterThanOrEqual(spam.threshold);
    expect(spam.rules).toContainEqual({ name: "GTUBE", score: 1000, description: "BODY: Generic Test for Unsolicited Bulk Email" });
    const ham = await spamdReport(spamd, source(ORDINARY));
    expect(ham).toMatchObject({ isSpam: false, threshold: spam.threshold });
    expect(ham.score).toBeLessThan(ham.threshold);
    for (const rule of ham.rules) expect(rule).toEqual({ name: expect.stringMatching(/^[A-Z0-9_]+$/), score: expect.any(Number), description: expect.any(String) });
  });

  it("fails at once on a port nothing listens on", async () => {
    const error = await failsWithin(spamdReport({ host: "127.0.0.1", port: await freePort() }, source(ORDINARY)), 2_000);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("fails at its deadline on a server that accepts and never answers", async () => {
    const silent = await fakeSpamd(() => undefined);
    try {
      const started = Date.now();
      const error = await failsWithin(spamdReport({ host: "127.0.0.1", port: silent.port }, source(ORDINARY), 1_000), 3_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(error.message).toMatch(/did not answer within 1000 ms/);
    } finally {
      await silent.close();
    }
  });

  it("fails on an answer that is not spamd's, and on one longer than SPAMD_MAX_REPLY_BYTES, without waiting for its end", async () => {
    const garbage = await fakeSpamd((socket) => socket.end("220 mail.example ESMTP\r\n"));
    const endless = await fakeSpamd((socket) => {
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      const write = () => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on("drain", write);
      socket.write(`SPAMD/1.1 0 EX_OK\r\nSpam: True ; 6.0 / 5.0\r\n\r\n`);
      write();
    });
    try {
      expect((await failsWithin(spamdReport({ host: "127.0.0.1", port: garbage.port }, source(ORDINARY)), 2_000)).message).toMatch(/other than SPAMD/);
      expect((await failsWithin(spamdReport({ host: "127.0.0.1", port: endless.port }, source(ORDINARY)), 2_000)).message).toMatch(new RegExp(`longer than ${SPAMD_MAX_REPLY_BYTES} bytes`));
    } finally {
      await Promise.all([garbage.close(), endless.close()]);
    }
  });
});

describe("the spam check stored by the parser", () => {
  const server = useTestServer(() => ({ mail: true, env: { MAILSTOP_SPAMD: `127.0.0.1:${proxy.port}`, MAILSTOP_DNS_SERVERS: dns.server } }));

  async function send(text: string) {
    const inbox = await server.createInbox({ tag: uniqueTag("spam") });
    const subject = `Spam ${newId("message")}`;
    const started = Date.now();
    const info = await smtpTransport(server.smtpPort).sendMail({ from: "alex@mailer.example", to: inbox.address, subject, text });
    return { inbox, subject, started, replyMs: Date.now() - started, response: info.response };
  }
  const stored = (inboxId: string, subject: string, timeoutMs: number) =>
    eventually(() => server.db.selectFrom("messages").select(["id", "checks"]).where("inbox_id", "=", inboxId).where("subject", "=", subject).executeTakeFirst(), { timeoutMs, what: `message "${subject}"` });

  it("stores GTUBE as spam with its rules, which GET /v1/messages/{id}/checks returns, and the message view's checks say", async () => {
    const { inbox, subject, response } = await send(`This is a test.\n${GTUBE}\n`);
    expect(response).toMatch(/^250 /);
    const { id, checks } = await stored(inbox.id, subject, 30_000);
    expect(checks?.spam).toMatchObject({ status: "spam", threshold: expect.any(Number), score: expect.any(Number) });
    expect(checks!.spam!.score!).toBeGreaterThanOrEqual(checks!.spam!.threshold!);
    expect(checks!.spam!.rules).toContainEqual({ name: "GTUBE", score: 1000, description: "BODY: Generic Test for Unsolicited Bulk Email" });
    const { status, json } = await server.request("GET", `/v1/messages/${id}/checks`);
    expect(status).toBe(200);
    expect(json.spam).toEqual(checks!.spam);
    expect((await server.request("GET", `/v1/messages/${id}`)).json.checks.spam).toBe("spam");
  });

  it("stores an ordinary message as ham", async () => {
    const { inbox, subject } = await send(ORDINARY);
    const { id, checks } = await stored(inbox.id, subject, 30_000);
    expect(checks?.spam).toMatchObject({ status: "ham", score: expect.any(Number), threshold: expect.any(Number), rules: expect.any(Array) });
    expect(checks!.spam!.score!).toBeLessThan(checks!.spam!.threshold!);
    expect((await server.request("GET", `/v1/messages/${id}/checks`)).json.spam).toEqual(checks!.spam);
  });

  it(
    "answers 250 at once and stores the message with status error at the deadline when spamd accepts and never answers",
    async () => {
      proxy.freeze();
      try {
        const { inbox, subject, started, replyMs, response } = await send(ORDINARY);
        expect(response).toMatch(/^250 /);
        expect(replyMs).toBeLessThan(3_000);
        const { checks } = await stored(inbox.id, subject, SPAMD_DEADLINE_MS + 20_000);
        expect(Date.now() - started).toBeLessThan(SPAMD_DEADLINE_MS + 8_000);
        expect(checks?.spam).toEqual({ status: "error", score: null, threshold: null, rules: [] });
        expect(checks?.authentication).not.toBeNull();
      } finally {
        proxy.thaw();
      }
    },
    SPAMD_DEADLINE_MS + 40_000,
  );

  it("stores the message with status error, without waiting, when spamd is down", async () => {
    proxy.sever();
    try {
      const { inbox, subject, started, response } = await send(ORDINARY);
      expect(response).toMatch(/^250 /);
      const { checks } = await stored(inbox.id, subject, 10_000);
      expect(Date.now() - started).toBeLessThan(SPAMD_DEADLINE_MS);
      expect(checks?.spam).toEqual({ status: "error", score: null, threshold: null, rules: [] });
    } finally {
      proxy.mend();
    }
  });
});
