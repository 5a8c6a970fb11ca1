import { newId } from "@mailstop/core";
import { type TestDns, eventually, publishSendingDomain, smtpTransport, startTestDns, testDkimKey, uniqueTag, useTestServer } from "@mailstop/testkit";
import nodemailer from "nodemailer";
import { DNS_MESSAGE_DEADLINE_MS } from "./dns-budget";

// End to end: mail over SMTP to the edge, which records the connection; the parser checks it
// through MAILSTOP_DNS_SERVERS (a DNS server of the suite) and stores the checks in the row.
let dns: TestDns;
const key = testDkimKey();
const server = useTestServer(async () => {
  dns = await startTestDns();
  publishSendingDomain(dns, "signed.example", key);
  for (const name of ["silent.example", "s1._domainkey.silent.example", "_dmarc.silent.example"]) dns.set(name, { silent: true });
  return { mail: true, env: { MAILSTOP_DNS_SERVERS: dns.server, MAILSTOP_HTML_CLIENTS: "gmail.desktop-webmail,outlook.windows" } };
});
afterAll(() => dns?.stop());

async function send(domain: string, html: string) {
  const inbox = await server.createInbox({ tag: uniqueTag("checks") });
  const subject = `Checks ${newId("message")}`;
  const signer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { domainName: domain, keySelector: "s1", privateKey: key.privateKey } });
  const { message } = await signer.sendMail({ from: `app@${domain}`, to: inbox.address, subject, text: "hello", html });
  const started = Date.now();
  const info = await smtpTransport(server.smtp!.receiving).sendMail({ envelope: { from: `bounce@${domain}`, to: [inbox.address] }, raw: message as Buffer });
  return { inbox, subject, replyMs: Date.now() - started, response: info.response };
}

const storedRow = (inboxId: string, subject: string, timeoutMs = 10_000) =>
  eventually(() => server.db.selectFrom("messages").select(["checks"]).where("inbox_id", "=", inboxId).where("subject", "=", subject).executeTakeFirst(), { timeoutMs, what: `message "${subject}"` });

describe("message checks stored by the parser", () => {
  it("stores the authentication of a signed message (SPF by the address the edge saw) and its HTML support", async () => {
    const { inbox, subject, response } = await send("signed.example", '<html><head><style>.a{display:flex}</style></head><body><div class="a">hi</div></body></html>');
    expect(response).toMatch(/^250 /);
    const { checks } = await storedRow(inbox.id, subject);
    expect(checks?.authentication).toEqual({
      status: "pass",
      dkim: [{ domain: "signed.example", selector: "s1", result: "pass", aligned: true }],
      spf: { domain: "signed.example", result: "pass" },
      dmarc: { domain: "signed.example", policy: null, result: "none" },
      arc: { result: "none" },
    });
    expect(checks?.html?.status).toBe("warnings");
    expect(checks?.html?.issues.find((issue) => issue.title === "display:flex")).toMatchObject({ level: "unsupported", clients: ["outlook.windows"] });
  });

  it(
    "answers 250 at once and stores the message with temperror within the DNS deadline when the DNS server never answers",
    async () => {
      const { inbox, subject, replyMs, response } = await send("silent.example", "<p>hi</p>");
      expect(response).toMatch(/^250 /);
      expect(replyMs).toBeLessThan(3_000);
      const started = Date.now();
      const { checks } = await storedRow(inbox.id, subject, DNS_MESSAGE_DEADLINE_MS + 10_000);
      expect(Date.now() - started).toBeLessThan(DNS_MESSAGE_DEADLINE_MS + 5_000);
      expect(checks?.authentication?.status).toBe("temperror");
      expect(checks?.html).toEqual({ status: "ok", issues: [] });
    },
    60_000,
  );
});
