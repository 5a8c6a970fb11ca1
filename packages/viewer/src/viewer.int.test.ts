import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, type BrowserContext, type Frame, type Page, defaultSmtpTransport, eventually, launchChromium, useTestServer } from "@mailstop/testkit";

/**
 * The web inbox viewer (packages/viewer) in Debian's Chromium against a started mailstop:
 * signing in with a key, live arrival, reading, copying, downloading, deleting, and mail that
 * tries to run script or reach the network. Needs the viewer built (`pnpm test` builds it;
 * alone: `pnpm --filter @mailstop/viewer build`).
 */
const server = useTestServer({ mail: true });

/** A 1x1 GIF. */
const GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

/** A listener on 127.0.0.1 that records every request: hostile mail aims its requests here. */
interface Tripwire {
  origin: string;
  hits: string[];
  close(): Promise<void>;
}

async function startTripwire(): Promise<Tripwire> {
  const hits: string[] = [];
  const listener: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/gif", "access-control-allow-origin": "*" });
    res.end(Buffer.from(GIF, "base64"));
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise<void>((resolve) => listener.close(() => resolve())) };
}

let browser: Browser;
let tripwire: Tripwire;
beforeAll(async () => {
  [browser, tripwire] = await Promise.all([launchChromium(), startTripwire()]);
});
// Each test starts with an untouched tripwire (its contexts are closed after it).
beforeEach(() => {
  tripwire.hits.splice(0);
});
afterAll(async () => {
  await browser?.close();
  await tripwire?.close();
});

interface Viewer {
  context: BrowserContext;
  page: Page;
  dialogs: string[];
}

const viewers: Viewer[] = [];
afterEach(async () => {
  await Promise.all(viewers.splice(0).map((viewer) => viewer.context.close()));
});

/** A fresh browser context on /ui/ with the suite's key entered (the form submitted with Enter). */
async function openViewer(): Promise<Viewer> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  const page = await context.newPage();
  const viewer: Viewer = { context, page, dialogs: [] };
  viewers.push(viewer);
  page.on("dialog", (dialog) => {
    viewer.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${server.url}/ui/`);
  await page.locator('input[name="api_key"]').fill(server.apiKey);
  await page.locator('input[name="api_key"]').press("Enter");
  await page.locator("#session").waitFor({ state: "visible" });
  await page.locator('input[name="api_key"]').waitFor({ state: "hidden" });
  await page.locator("#key-help").waitFor({ state: "hidden" });
  return viewer;
}

/** Finds the inbox by its address and opens it; resolves once its event stream is live. */
async function openInbox(page: Page, address: string): Promise<void> {
  await page.locator('input[name="q"]').fill(address);
  await page.locator('input[name="q"]').press("Enter");
  await page.locator("button.inbox", { hasText: address }).click();
  await page.locator('#stream-state[data-state="live"]').waitFor();
}

async function openMessage(page: Page, subject: string): Promise<void> {
  await page.locator("button.message", { hasText: subject }).click();
  await page.locator(".message-head .subject").filter({ hasText: subject }).waitFor();
}

/** The HTML part's frame, once its document (and everything it was allowed to load) has loaded. */
async function mailFrame(page: Page, text: string): Promise<Frame> {
  const handle = await page.locator("iframe.html-frame").elementHandle();
  const frame = await handle!.contentFrame();
  await frame!.locator("body", { hasText: text }).waitFor();
  await frame!.waitForLoadState("load");
  return frame!;
}

/** Nothing ran: no dialog, no marker on any frame, no request to the tripwire. */
async function expectNothingRan(viewer: Viewer): Promise<void> {
  const markers = await Promise.all(viewer.page.frames().map((frame) => frame.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned ?? null)));
  expect({ dialogs: viewer.dialogs, markers: markers.filter((marker) => marker !== null), hits: tripwire.hits }).toEqual({ dialogs: [], markers: [], hits: [] });
}

/** Script that, wherever it runs, leaves every trace expectNothingRan looks for. */
const mark = (name: string) =>
  `window.__pwned='${name}';try{top.__pwned='${name}'}catch(e){};alert('${name}');fetch('${tripwire.origin}/${name}');new Image().src='${tripwire.origin}/img-${name}'`;

function uniqueSubject(what: string): string {
  return `${what} ${Math.random().toString(36).slice(2, 10)}`;
}

describe("reading an inbox in the viewer", () => {
  it("signs in with a key, shows mail arriving live, reads text and HTML, copies a code, downloads an attachment and deletes", async () => {
    const inbox = await server.createInbox();
    const viewer = await openViewer();
    const { page } = viewer;
    // The key stays in this tab's sessionStorage only.
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("mailstop.api_key"))).toBe(server.apiKey);
    await openInbox(page, inbox.address);

    // Delivered after the list is open: it appears without a reload.
    const subject = uniqueSubject("Your code");
    const attachment = Buffer.from("%PDF-1.7 viewer attachment bytes");
    await server.send({
      to: inbox.address,
      subject,
      text: "Your verification code is 482913.\nVisit https://app.example.test/verify?t=abc to finish.",
      html: `<p>Your verification code is <b>482913</b>.</p><p><a href="https://app.example.test/verify?t=abc">Verify</a></p>`,
      attachments: [{ filename: "report.pdf", content: attachment, contentType: "application/pdf" }],
    });
    await page.locator("button.message", { hasText: subject }).waitFor({ timeout: 20_000 });
    await openMessage(page, subject);

    // HTML first (sandboxed frame), then the text part.
    const frame = await mailFrame(page, "482913");
    expect(await frame.locator("b").textContent()).toBe("482913");
    expect(await page.locator("iframe.html-frame").getAttribute("sandbox")).toBe("allow-popups allow-popups-to-escape-sandbox");
    await page.getByRole("tab", { name: "Text" }).click();
    await page.locator("pre.body-text", { hasText: "Your verification code is 482913." }).waitFor();

    // The code, copied to the clipboard.
    await page.locator(".codes li", { hasText: "482913" }).getByRole("button", { name: "Copy code" }).click();
    await page.locator(".codes li", { hasText: "482913" }).getByRole("button", { name: "Copy code" }).filter({ hasText: "Copied" }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe("482913");

    // The attachment, downloaded with its name and bytes.
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator(".attachments li", { hasText: "report.pdf" }).getByRole("button", { name: "Download" }).click()]);
    expect(download.suggestedFilename()).toBe("report.pdf");
    const chunks: Buffer[] = [];
    for await (const chunk of (await download.createReadStream())!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(attachment)).toBe(true);

    // Headers and raw source are text.
    await page.getByRole("tab", { name: "Raw source" }).click();
    await page.locator("pre.body-raw", { hasText: `Subject: ${subject}` }).waitFor();

    // Delete: asked on the button itself, then gone from the list and from the API.
    await page.locator('[data-action="delete"]').click();
    await page.locator('[data-action="delete"]', { hasText: "Click again" }).click();
    await page.locator("button.message", { hasText: subject }).waitFor({ state: "detached" });
    const { json } = await server.request("GET", `/v1/messages?inbox=${encodeURIComponent(inbox.id)}`);
    expect(json.data).toEqual([]);
    await expectNothingRan(viewer);
  });

  it("moves through the messages with j / k and the arrow keys", async () => {
    const inbox = await server.createInbox();
    const subjects = [uniqueSubject("First"), uniqueSubject("Second"), uniqueSubject("Third")];
    for (const subject of subjects) await server.deliver(inbox, { subject, text: subject });
    const { page } = await openViewer();
    await openInbox(page, inbox.address);
    await page.locator("button.message", { hasText: subjects[0] }).waitFor();
    const shown = page.locator(".message-head .subject");
    // Newest first: j opens the first row, then moves down; k and ArrowUp move back up.
    await page.keyboard.press("j");
    await shown.filter({ hasText: subjects[2] }).waitFor();
    await page.keyboard.press("ArrowDown");
    await shown.filter({ hasText: subjects[1] }).waitFor();
    await page.keyboard.press("j");
    await shown.filter({ hasText: subjects[0] }).waitFor();
    await page.keyboard.press("k");
    await shown.filter({ hasText: subjects[1] }).waitFor();
    await page.keyboard.press("ArrowUp");
    await shown.filter({ hasText: subjects[2] }).waitFor();
  });

  it("searching a recipient the application mailed finds its capture inbox, saying where its mail is filed", async () => {
    const { page } = await openViewer();
    const recipient = `newuser.${Date.now().toString(36)}@example.com`;
    const captureInbox = `${server.project.projectKey}.capture.example.com.${recipient.split("@")[0]}@mailstop.test`;
    await page.locator('input[name="q"]').fill(recipient);
    await page.locator('input[name="q"]').press("Enter");
    await page.locator("#status", { hasText: `Nothing captured for ${recipient} yet: its mail will be filed in ${captureInbox}.` }).waitFor();
    await defaultSmtpTransport(server.smtp!.capture, { user: server.project.smtp.username, pass: server.project.smtp.password }).sendMail({ from: "app@acme.example", to: recipient, subject: "Welcome", text: "hi" });
    await eventually(async () => ((await server.request("GET", `/v1/inboxes/${encodeURIComponent(captureInbox)}`)).status === 200 ? true : null), { what: "the capture inbox" });
    await page.locator('input[name="q"]').press("Enter");
    await page.locator("button.inbox", { hasText: captureInbox }).waitFor();
    await page.locator("#status", { hasText: `Mail the capture relay took for ${recipient} is filed in ${captureInbox}.` }).waitFor();
  });

  it("says on the sign-in form where the key comes from and how to make a new one", async () => {
    const context = await browser.newContext();
    viewers.push({ context, page: await context.newPage(), dialogs: [] });
    const page = context.pages()[0]!;
    await page.goto(`${server.url}/ui/`);
    const help = await page.locator("#key-help").innerText();
    expect(help).toContain("pnpm start prints the local project's key on its first start");
    expect(help).toContain("mailstop keys create --project local");
  });

  it("refuses a wrong key and keeps the form", async () => {
    const context = await browser.newContext();
    viewers.push({ context, page: await context.newPage(), dialogs: [] });
    const page = context.pages()[0]!;
    await page.goto(`${server.url}/ui/`);
    await page.locator('input[name="api_key"]').fill("is_test_not_a_real_key_0123456789");
    await page.locator('input[name="api_key"]').press("Enter");
    await page.locator("#status.error", { hasText: "invalid_api_key" }).waitFor();
    expect(await page.locator('input[name="api_key"]').isVisible()).toBe(true);
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("mailstop.api_key"))).toBeNull();
  });
});

describe("hostile mail in the viewer: nothing runs, nothing is fetched", () => {
  const cases: Array<{ name: string; html: (subject: string) => string; after?: (frame: Frame) => Promise<void> }> = [
    { name: "a <script> element", html: (s) => `<p>${s}</p><script>${mark("script")}</script>` },
    {
      name: "onerror and onload handlers",
      html: (s) => `<body onload="${mark("body-onload")}"><p>${s}</p><img src="x" onerror="${mark("onerror")}"><img src="data:image/gif;base64,${GIF}" onload="${mark("img-onload")}"></body>`,
    },
    { name: "<svg onload> and svg script", html: (s) => `<p>${s}</p><svg onload="${mark("svg-onload")}"><script>${mark("svg-script")}</script><circle r="5"/></svg>` },
    {
      name: "javascript: links, clicked",
      html: (s) => `<p>${s}</p><a id="js1" href="javascript:${mark("js-link")}">first link</a> <a id="js2" href=" JaVaScRiPt:${mark("js-link-case")}">second link</a>`,
      after: async (frame) => {
        await frame.getByText("first link").click();
        await frame.getByText("second link").click();
      },
    },
    {
      name: "srcdoc and data: frames inside the mail",
      html: (s) => `<p>${s}</p><iframe srcdoc="<script>${mark("srcdoc")}</script>"></iframe><iframe src="data:text/html,<script>${mark("data-frame")}</script>"></iframe><object data="javascript:${mark("object")}"></object>`,
    },
    {
      name: "a meta refresh to javascript: and a form posting out",
      html: (s) => `<meta http-equiv="refresh" content="0;url=javascript:${mark("refresh")}"><p>${s}</p><form action="${tripwire.origin}/form"><button id="go">send form</button></form>`,
      after: async (frame) => {
        // The form (if it survived sanitising) would post to the tripwire.
        if ((await frame.locator("#go").count()) > 0) await frame.locator("#go").click();
      },
    },
    {
      name: "CSS loading from the network",
      html: (s) => `<style>@import url(${tripwire.origin}/import.css); p { background: url(${tripwire.origin}/background.png) }</style><p>${s}</p><div style="background-image:url('${tripwire.origin}/inline-bg.png')">x</div>`,
    },
  ];

  it.each(cases)("$name", async ({ html, after }) => {
    const inbox = await server.createInbox();
    const subject = uniqueSubject("Hostile");
    await server.deliver(inbox, { subject, text: "hostile", html: html(subject) });
    const viewer = await openViewer();
    await openInbox(viewer.page, inbox.address);
    await openMessage(viewer.page, subject);
    const frame = await mailFrame(viewer.page, subject);
    await after?.(frame);
    // The viewer is still whole: its tabs answer.
    await viewer.page.getByRole("tab", { name: "Text" }).click();
    await viewer.page.locator("pre.body-text", { hasText: "hostile" }).waitFor();
    await expectNothingRan(viewer);
  });

  it("shows a subject, a sender name and an attachment name carrying markup as text", async () => {
    const inbox = await server.createInbox();
    const subject = `<img src=x onerror="${mark("subject")}"> ${uniqueSubject("Markup")}`;
    const name = `<img src=y onerror="${mark("sender")}">`;
    const filename = `<img src=z onerror=alert(1)>.html`;
    await server.deliver(inbox, {
      subject,
      from: { name, address: "evil@attacker.test" },
      text: "look",
      attachments: [{ filename, content: Buffer.from("<script>alert(1)</script>"), contentType: "text/html" }],
    });
    const viewer = await openViewer();
    const { page } = viewer;
    await openInbox(page, inbox.address);
    await page.locator("button.message .subject").filter({ hasText: subject }).waitFor();
    await openMessage(page, subject);
    expect(await page.locator(".message-head .subject").textContent()).toBe(subject);
    expect(await page.locator(".message-head .from").textContent()).toBe(`${name} <evil@attacker.test>`);
    // The API already made the name safe (no < > / "); the viewer shows what it was given as text.
    const shownName = await page.locator(".attachments .filename").textContent();
    expect(shownName).toContain("img src=z onerror=alert(1)");
    // No element was made from any of it: the page's only images are none at all.
    expect(await page.locator("img").count()).toBe(0);

    // The .html attachment downloads, it is not rendered.
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('button[data-attachment]').click()]);
    expect(download.suggestedFilename()).toBe(shownName);
    await expectNothingRan(viewer);
  });

  it("leaves a cid: image whose Content-ID climbs with ../ as a blocked placeholder", async () => {
    const inbox = await server.createInbox();
    const subject = uniqueSubject("Cid");
    const cid = "../../../v1/inboxes";
    await server.deliver(inbox, {
      subject,
      text: "cid",
      html: `<p>${subject}</p><img id="inline" src="cid:${cid}" alt="inline">`,
      attachments: [{ filename: "logo.gif", content: Buffer.from(GIF, "base64"), contentType: "image/gif", cid }],
    });
    const viewer = await openViewer();
    await openInbox(viewer.page, inbox.address);
    await openMessage(viewer.page, subject);
    const frame = await mailFrame(viewer.page, subject);
    expect(await frame.locator("#inline").evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(0);
    await expectNothingRan(viewer);
  });

  it("keeps the viewer's controls usable under mail CSS that covers the whole viewport", async () => {
    const inbox = await server.createInbox();
    const subject = uniqueSubject("Overlay");
    const overlay = `<div style="position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:2147483647;background:red">OVERLAY</div>`;
    await server.deliver(inbox, { subject, text: "overlay", html: `<p>${subject}</p>${overlay}` });
    const viewer = await openViewer();
    const { page } = viewer;
    await openInbox(page, inbox.address);
    await openMessage(page, subject);
    await mailFrame(page, "OVERLAY");
    // Playwright clicks only what receives the pointer: an overlay over the page would fail these.
    const frameBox = (await page.locator("iframe.html-frame").boundingBox())!;
    for (const control of [page.locator("#sign-out"), page.locator('input[name="q"]'), page.locator("button.message", { hasText: subject }), page.getByRole("tab", { name: "Text" })]) {
      const box = (await control.boundingBox())!;
      const inside = box.x >= frameBox.x && box.y >= frameBox.y && box.x + box.width <= frameBox.x + frameBox.width && box.y + box.height <= frameBox.y + frameBox.height;
      expect(inside).toBe(false);
      await control.click({ trial: true, timeout: 5000 });
    }
    await page.getByRole("tab", { name: "Text" }).click();
    await page.locator("pre.body-text", { hasText: "overlay" }).waitFor();
    await expectNothingRan(viewer);
  });

  it("loads remote images only once the user allows them for that message", async () => {
    const inbox = await server.createInbox();
    const subject = uniqueSubject("Remote");
    await server.deliver(inbox, { subject, text: "remote", html: `<p>${subject}</p><img id="pixel" src="${tripwire.origin}/pixel.gif" width="1" height="1">` });
    const viewer = await openViewer();
    const { page } = viewer;
    await openInbox(page, inbox.address);
    await openMessage(page, subject);
    await mailFrame(page, subject);
    await page.locator(".notice", { hasText: "Remote images are blocked (1)" }).waitFor();
    await expectNothingRan(viewer);

    await page.locator('[data-action="allow-images"]').click();
    const frame = await mailFrame(page, subject);
    await eventually(async () => (tripwire.hits.includes("/pixel.gif") ? true : null), { what: "the remote image request" });
    expect(await frame.locator("#pixel").evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
  });
});

describe("headers of the viewer's page", () => {
  it("serves /ui/ with a strict Content-Security-Policy, nosniff and no referrer; / and /ui lead there", async () => {
    const page = await fetch(`${server.url}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const csp = page.headers.get("content-security-policy")!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    const html = await page.text();
    // Every script is a file of this origin, none inline.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    for (const [, src] of html.matchAll(/\s(?:src|href)="(\.\/assets\/[^"]+)"/g)) {
      const asset = await fetch(new URL(src!, `${server.url}/ui/`));
      expect([src, asset.status, asset.headers.get("x-content-type-options")]).toEqual([src, 200, "nosniff"]);
    }
    for (const [path, status] of [["/", 302], ["/ui", 301]] as const) {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(new URL(response.headers.get("location")!, `${server.url}${path}`).pathname).toBe("/ui/");
    }
  });
});
