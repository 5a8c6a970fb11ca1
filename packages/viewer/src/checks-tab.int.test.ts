import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Browser,
  type BrowserContext,
  type Page,
  type TestDns,
  launchChromium,
  publishSendingDomain,
  startTestDns,
  testDkimKey,
  uniqueTag,
  useTestServer,
} from "@mailstop/testkit";

/**
 * The viewer's Checks tab (docs/viewer.md) in Debian's Chromium: the stored checks of a
 * DKIM-signed message with HTML issues, and "Check links" against a site on 127.0.0.1 (the
 * one network the webhooks' allow list admits here). Names resolve through the suite's own
 * DNS server. Needs the viewer built, like viewer.int.test.ts.
 */
let dns: TestDns;
const key = testDkimKey();
const server = useTestServer(async () => {
  dns = await startTestDns();
  publishSendingDomain(dns, "signed.example", key);
  return {
    mail: true,
    env: { MAILSTOP_DNS_SERVERS: dns.server, MAILSTOP_HTML_CLIENTS: "gmail.desktop-webmail,outlook.windows", MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.1/32" },
  };
});

/** A site on 127.0.0.1 answering 200 to everything; `/held/…` only once the test releases it. */
interface Site {
  origin: string;
  requests: string[];
  release(): void;
  stop(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  let released = false;
  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url?.startsWith("/held/") && !released) held.push(res);
    else res.writeHead(200).end("fine");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    requests,
    release: () => {
      released = true;
      for (const res of held.splice(0)) res.writeHead(200).end("fine");
    },
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

let browser: Browser;
let site: Site;
beforeAll(async () => {
  [browser, site] = await Promise.all([launchChromium(), startSite()]);
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await dns?.stop();
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/** Signs in with the suite's key, opens the inbox and the message, then its Checks tab. */
async function openChecks(address: string, subject: string): Promise<{ page: Page; dialogs: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${server.url}/ui/`);
  await page.locator('input[name="api_key"]').fill(server.apiKey);
  await page.locator('input[name="api_key"]').press("Enter");
  await page.locator('input[name="q"]').fill(address);
  await page.locator('input[name="q"]').press("Enter");
  await page.locator("button.inbox", { hasText: address }).click();
  await page.locator("button.message", { hasText: subject }).click();
  await page.locator(".message-head .subject").filter({ hasText: subject }).waitFor();
  await page.getByRole("tab", { name: "Checks" }).click();
  await page.locator(".checks").waitFor();
  return { page, dialogs };
}

type Locator = ReturnType<Page["locator"]>;

/** The cells' text of a section's table, row by row. */
const rows = (section: Locator) => section.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from((tr as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells, (cell) => cell.textContent)));
const section = (page: Page, name: string) => page.locator(`section.check[data-check="${name}"]`);
const statusOf = (page: Page, name: string) => section(page, name).locator(".check-head .result").textContent();

describe("the viewer's Checks tab", () => {
  it("shows the stored authentication, HTML support, links and spam checks of a message", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("checks") });
    const subject = `Checks ${uniqueTag("tab")}`;
    await server.send({
      from: "app@signed.example",
      envelope: { from: "bounce@signed.example", to: [inbox.address] },
      to: inbox.address,
      subject,
      text: "hello",
      html: '<html><head><style>.a{display:flex}</style></head><body><div class="a" style="display:flex">hi</div></body></html>',
      dkim: { domainName: "signed.example", keySelector: "s1", privateKey: key.privateKey },
    });
    const { id } = await server.stored(inbox.id, subject);
    const stored = (await server.request("GET", `/v1/messages/${id}/checks`)).json;
    expect(stored.authentication.status).toBe("pass");
    expect(stored.html.issues.map((issue: { title: string }) => issue.title)).toContain("display:flex");

    const { page, dialogs } = await openChecks(inbox.address, subject);
    const auth = section(page, "authentication");
    expect(await statusOf(page, "authentication")).toBe("pass");
    expect(await rows(auth)).toEqual([["signed.example", "s1", "pass", "yes"]]);
    expect(await auth.locator('[data-field="spf"]').textContent()).toBe("pass signed.example");
    expect(await auth.locator('[data-field="dmarc"]').textContent()).toBe("none signed.example, no policy");
    expect(await auth.locator('[data-field="arc"]').textContent()).toBe("none");

    expect(await statusOf(page, "html")).toBe("warnings");
    expect(await rows(section(page, "html"))).toEqual(
      stored.html.issues.map((issue: { title: string; level: string; clients: string[]; count: number }) => [issue.title, issue.level, issue.clients.join(", "), String(issue.count)]),
    );
    expect(await section(page, "html").locator("tbody tr", { hasText: "display:flex" }).locator("td").nth(2).textContent()).toBe("outlook.windows");

    expect(await statusOf(page, "links")).toBe("not_checked");
    expect(await section(page, "links").textContent()).toContain("Not checked yet");
    expect(await section(page, "spam").textContent()).toContain("Not configured");
    expect(await section(page, "spam").locator(".result").count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it("shows a spam verdict with its score, threshold and rules, as text", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("spam") });
    const subject = `Spam ${uniqueTag("tab")}`;
    const row = await server.deliver(inbox, { subject, text: "buy now" });
    // Written as the parser stores spamd's verdict (the suite's server has no spamd).
    const rules = [
      { name: "HTML_MESSAGE", score: 0.001, description: "BODY: HTML included in message" },
      { name: "LOTS_OF_MONEY", score: 6.2, description: '<img src=x onerror="alert(1)"> Huge sums of money' },
    ];
    await server.db.updateTable("messages").set({ checks: JSON.stringify({ ...row.checks, spam: { status: "spam", score: 6.201, threshold: 5, rules } }) }).where("id", "=", row.id).execute();
    const { page, dialogs } = await openChecks(inbox.address, subject);
    expect(await statusOf(page, "spam")).toBe("spam");
    expect(await section(page, "spam").locator(".note").textContent()).toBe("Score 6.201 (threshold 5)");
    expect(await rows(section(page, "spam"))).toEqual(rules.map((rule) => [rule.name, String(rule.score), rule.description]));
    expect({ dialogs, images: await page.locator("img").count() }).toEqual({ dialogs: [], images: 0 });
  });

  it("checks the links on request: the button is disabled while it runs, then the result shows ok with status 200", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("links") });
    const subject = `Links ${uniqueTag("tab")}`;
    // A link whose query carries markup: it must come back as text.
    const url = `${site.origin}/held/${uniqueTag("page")}?q=<img src=x onerror=alert(1)>`;
    const { id } = await server.deliver(inbox, { subject, text: "see the link", html: `<p><a href="${url.replace(/</g, "&lt;").replace(/>/g, "&gt;")}">open</a></p>` });
    const { page, dialogs } = await openChecks(inbox.address, subject);
    const links = section(page, "links");
    expect(await statusOf(page, "links")).toBe("not_checked");

    await links.getByRole("button", { name: "Check links" }).click();
    // The site holds the request until the test has seen the button disabled.
    const running = links.locator('button[data-action="check-links"]');
    await running.filter({ hasText: "Checking links…" }).waitFor();
    expect(await running.isDisabled()).toBe(true);
    site.release();

    await section(page, "links").locator(".check-head .result", { hasText: "ok" }).waitFor({ timeout: 20_000 });
    const stored = (await server.request("GET", `/v1/messages/${id}/checks`)).json.links;
    expect(stored).toMatchObject({ status: "ok", results: [{ ok: true, status_code: 200, redirects: 0, error: null }] });
    const [result] = stored.results;
    expect(result.url).toBe(url);
    expect(await rows(section(page, "links"))).toEqual([[result.url, "ok", "200", "0", result.final_url, "—"]]);
    expect(await section(page, "links").locator("time").getAttribute("datetime")).toBe(stored.checked_at);
    expect(await section(page, "links").getByRole("button", { name: "Check links" }).isEnabled()).toBe(true);
    expect(site.requests.some((request) => request.startsWith("HEAD /held/"))).toBe(true);
    expect({ dialogs, images: await page.locator("img").count() }).toEqual({ dialogs: [], images: 0 });
  });

  it("says so in the Links section when the link check fails", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("gone") });
    const subject = `Gone ${uniqueTag("tab")}`;
    const { id } = await server.deliver(inbox, { subject, text: "x", html: `<p><a href="${site.origin}/ok">open</a></p>` });
    const { page } = await openChecks(inbox.address, subject);
    // Deleted behind the viewer's back: the check answers 404.
    expect((await server.request("DELETE", `/v1/messages/${id}`)).status).toBe(200);
    await section(page, "links").getByRole("button", { name: "Check links" }).click();
    const error = section(page, "links").locator(".check-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^The link check failed: .*\(message_not_found\)$/);
    expect(await section(page, "links").getByRole("button", { name: "Check links" }).isEnabled()).toBe(true);
  });
});
