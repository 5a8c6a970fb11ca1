import { type TestDns, startTestDns, testDkimKey } from "@mailstop/testkit";
import nodemailer from "nodemailer";
import { checkAuthentication } from "./authentication";
import { DNS_MESSAGE_DEADLINE_MS } from "./dns-budget";

// Real parts: a DNS server on loopback publishing the keys and policies, mail signed by
// nodemailer's dkim option, checked by mailauth through the resolver of the parser.
let dns: TestDns;
const { record: keyRecord, privateKey: privatePem } = testDkimKey();

beforeAll(async () => {
  dns = await startTestDns();
  dns.set("s1._domainkey.signed.example", { txt: [keyRecord] });
  dns.set("s1._domainkey.other.example", { txt: [keyRecord] });
  dns.set("signed.example", { txt: ["v=spf1 ip4:127.0.0.1 -all"] });
  dns.set("elsewhere.example", { txt: ["v=spf1 ip4:192.0.2.1 -all"] });
  dns.set("_dmarc.brand.example", { txt: ["v=DMARC1; p=reject"] });
  dns.set("_dmarc.signed.example", { txt: ["v=DMARC1; p=none"] });
  for (const name of ["silent.example", "s1._domainkey.silent.example", "_dmarc.silent.example"]) dns.set(name, { silent: true });
});
afterAll(() => dns.stop());

async function mail(from: string, dkim?: { domainName: string; keySelector: string }): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, ...(dkim ? { dkim: { ...dkim, privateKey: privatePem } } : {}) });
  const info = await transport.sendMail({ from, to: "someone@mailstop.test", subject: "Checks", text: "Your code is 483920\n", html: "<p>Your code is <b>483920</b></p>" });
  return info.message as Buffer;
}

const check = (raw: Buffer, mailFrom: string | null, address: string | null = "127.0.0.1") => checkAuthentication(raw, { address, helo: "mta.sender.test", mailFrom }, [dns.server]);

describe("authentication checks", () => {
  it("passes a message signed with a key its domain publishes, aligned with From, and DMARC passes", async () => {
    const result = await check(await mail("app@signed.example", { domainName: "signed.example", keySelector: "s1" }), "bounce@signed.example");
    expect(result).toEqual({
      status: "pass",
      dkim: [{ domain: "signed.example", selector: "s1", result: "pass", aligned: true }],
      spf: { domain: "signed.example", result: "pass" },
      dmarc: { domain: "signed.example", policy: "none", result: "pass" },
      arc: { result: "none" },
    });
  });

  it("fails a signature over a body changed after signing", async () => {
    const signed = (await mail("app@other.example", { domainName: "other.example", keySelector: "s1" })).toString("utf8");
    const tampered = Buffer.from(signed.replace("483920", "000000"), "utf8");
    const result = await check(tampered, "bounce@other.example");
    expect(result.dkim).toEqual([{ domain: "other.example", selector: "s1", result: "fail", aligned: true }]);
    expect(result.status).toBe("fail");
  });

  it("gives permerror for a signature whose selector publishes no key (RFC 6376 §6.1.2)", async () => {
    const result = await check(await mail("app@signed.example", { domainName: "signed.example", keySelector: "unpublished" }), "bounce@nowhere.example");
    expect(result.dkim).toEqual([{ domain: "signed.example", selector: "unpublished", result: "permerror", aligned: true }]);
  });

  it("says none for an unsigned message from a domain without a policy", async () => {
    const result = await check(await mail("app@plain.example"), "bounce@plain.example");
    expect(result).toMatchObject({ status: "none", dkim: [], dmarc: { result: "none", policy: null } });
  });

  it("checks SPF against the connecting address: pass where the domain lists it, fail where it does not", async () => {
    const raw = await mail("app@plain.example");
    expect((await check(raw, "bounce@signed.example")).spf).toEqual({ domain: "signed.example", result: "pass" });
    expect((await check(raw, "bounce@elsewhere.example")).spf).toEqual({ domain: "elsewhere.example", result: "fail" });
  });

  it("fails DMARC p=reject when the only signature is of another domain than From's", async () => {
    const result = await check(await mail("app@brand.example", { domainName: "other.example", keySelector: "s1" }), "bounce@other.example");
    expect(result.dkim).toEqual([{ domain: "other.example", selector: "s1", result: "pass", aligned: false }]);
    expect(result.dmarc).toEqual({ domain: "brand.example", policy: "reject", result: "fail" });
    expect(result.status).toBe("fail");
  });

  it(
    "gives temperror within the message's DNS deadline when the DNS server never answers",
    async () => {
      const started = Date.now();
      const result = await check(await mail("app@silent.example", { domainName: "silent.example", keySelector: "s1" }), "bounce@silent.example");
      expect(Date.now() - started).toBeLessThan(DNS_MESSAGE_DEADLINE_MS + 1_500);
      expect(result.status).toBe("temperror");
    },
    30_000,
  );
});
