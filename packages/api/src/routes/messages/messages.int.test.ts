import { newId } from "@mailstop/core";
import { RUN_DNS_ENV, expectError, uniqueTag, useTestServer } from "@mailstop/testkit";

const server = useTestServer({ mail: true, env: { MAILSTOP_SIM_DELAY_MS: "60000" } });

const auth = (key = server.apiKey) => ({ authorization: `Bearer ${key}` });
const get = (path: string, apiKey?: string) => server.request("GET", path, { apiKey });
const NOT_FOUND = { status: 404, code: "message_not_found", retryable: false } as const;

const createInbox = (tag = uniqueTag("read"), owner = server.project) => server.createInbox({ tag }, owner);

/** Sends through the receiving edge and returns the stored message's id once the parser has written it. */
const deliver = async (inbox: { id: string; address: string }, mail: { subject: string; text?: string; html?: string; attachments?: { filename: string; content: Buffer; contentType: string }[] }) =>
  (await server.deliver(inbox, { from: '"Acme" <noreply@acme.example>', ...mail })).id;

/**
 * Sends a raw multipart message whose one attachment has exactly `headers` (names and
 * dispositions nodemailer would rewrite) and `body`.
 */
const sendWithAttachment = (to: string, subject: string, headers: string[], body: string) => {
  const raw = ["From: a@b.test", `To: ${to}`, `Subject: ${subject}`, 'Content-Type: multipart/mixed; boundary="b"', "", "--b", "Content-Type: text/plain", "", "see attached", "--b", ...headers, "", body, "--b--", ""].join("\r\n");
  return server.send({ envelope: { from: "a@b.test", to: [to] }, raw });
};

describe("GET /v1/messages/{id}", () => {
  describe("200", () => {
    it("returns the documented message view with the text slice", async () => {
      const inbox = await createInbox();
      const subject = `View ${newId("message")}`;
      const id = await deliver(inbox, {
        subject,
        text: "Your code is 482913. Confirm: https://acme.example/verify?t=1",
        attachments: [{ filename: "a.pdf", content: Buffer.from("%PDF-1.7 tiny"), contentType: "application/pdf" }],
      });
      const { status, json } = await get(`/v1/messages/${id}`);
      expect(status).toBe(200);
      expect(json).toEqual({
        id,
        inbox_id: inbox.id,
        inbox: inbox.address,
        message_id: expect.stringMatching(/^<.+@.+>$/),
        received_at: expect.any(String),
        subject,
        from: { address: "noreply@acme.example", name: "Acme" },
        to: [{ address: inbox.address, name: null }],
        cc: [],
        reply_to: [],
        correlation_id: null,
        labels: {},
        size: expect.any(Number),
        codes: ["482913"],
        links: [{ url: "https://acme.example/verify?t=1", kind: "verify", text: null }],
        attachments: [
          { id: expect.stringMatching(/^att_/), filename: "a.pdf", content_type: "application/pdf", size: 13, url: `${server.url}/v1/messages/${id}/attachments/${json.attachments[0].id}` },
        ],
        body: {
          text: {
            preview: expect.stringContaining("Your code is 482913"),
            size: expect.any(Number),
            truncated: false,
            url: `${server.url}/v1/messages/${id}/body?format=text`,
          },
        },
        parse_warnings: [],
        checks: { authentication: "none", html: "none", links: "not_checked", spam: "not_configured" },
      });
    });

    it("adds the requested parts, repeated or comma-separated, and truncates previews at preview_chars", async () => {
      const inbox = await createInbox();
      const id = await deliver(inbox, { subject: `Parts ${newId("message")}`, text: "plain words here", html: "<p>html words</p>" });
      const comma = await get(`/v1/messages/${id}?format=html,headers&preview_chars=5`);
      expect(Object.keys(comma.json.body).sort()).toEqual(["headers", "html", "text"]);
      expect(comma.json.body.text).toMatchObject({ preview: "plain", truncated: true });
      expect(comma.json.body.html).toMatchObject({ preview: "<p>ht", truncated: true, url: `${server.url}/v1/messages/${id}/body?format=html` });
      const repeated = await get(`/v1/messages/${id}?format=raw&format=html`);
      expect(Object.keys(repeated.json.body).sort()).toEqual(["html", "raw", "text"]);
      expect(repeated.json.body.raw.preview).toContain("Subject: Parts");
      expect((await get(`/v1/messages/${id}?preview_chars=500000`)).status).toBe(200);
    });

    it("never inlines a part over 524288 bytes: empty preview, truncated, size and url kept", async () => {
      const inbox = await createInbox();
      const text = "x".repeat(600_000);
      const id = await deliver(inbox, { subject: `Big ${newId("message")}`, text });
      const { json } = await get(`/v1/messages/${id}?preview_chars=100000`);
      expect(json.body.text).toEqual({ preview: "", size: expect.any(Number), truncated: true, url: `${server.url}/v1/messages/${id}/body?format=text` });
      expect(json.body.text.size).toBeGreaterThan(524_288);
    });

    it("gives a message without a text part an empty text slice with no url", async () => {
      const inbox = await createInbox();
      const id = await deliver(inbox, { subject: `Html only ${newId("message")}`, html: "<p>only html</p>" });
      expect((await get(`/v1/messages/${id}`)).json.body.text).toEqual({ preview: "", size: 0, truncated: false, url: null });
    });
  });

  describe("404", () => {
    it("gives message_not_found for an unknown id, a malformed id, and another project's message", async () => {
      const other = await server.bootstrap();
      const theirs = await createInbox(uniqueTag("theirs"), other);
      const id = await deliver(theirs, { subject: `Theirs ${newId("message")}`, text: "x" });
      expectError(await get(`/v1/messages/${newId("message")}`), NOT_FOUND);
      expectError(await get("/v1/messages/nope"), NOT_FOUND);
      expectError(await get(`/v1/messages/${id}`), NOT_FOUND);
      expect((await get(`/v1/messages/${id}`, other.apiKey)).status).toBe(200);
    });

    it("hides a sim.delay message until it becomes visible", async () => {
      const inbox = await createInbox("sim.delay.read");
      const id = await deliver(inbox, { subject: `Hidden ${newId("message")}`, text: "later" });
      expectError(await get(`/v1/messages/${id}`), NOT_FOUND);
    });
  });

  describe("403", () => {
    it("needs messages:read", async () => {
      const writer = await server.bootstrap({ scopes: ["inboxes:write"] });
      const error = expectError(await get(`/v1/messages/${newId("message")}`, writer.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "messages:read" });
    });
  });
});

describe("GET /v1/messages/{id}/checks", () => {
  const HTML = '<html><head><style>.row{display:flex}</style></head><body><div class="row" style="position:absolute">hi</div></body></html>';

  it("returns the checks the parser stored (authentication, HTML support), links not checked and spam not configured; the view carries their statuses", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `Checks ${newId("message")}`, text: "hi", html: HTML });
    const { status, json } = await get(`/v1/messages/${id}/checks`);
    expect(status).toBe(200);
    expect(json).toEqual({
      message_id: id,
      // Unsigned, from a domain without SPF or DMARC records (.example names never resolve).
      authentication: { status: "none", dkim: [], spf: { domain: "acme.example", result: "none" }, dmarc: { domain: "acme.example", policy: null, result: "none" }, arc: { result: "none" } },
      html: {
        status: "warnings",
        issues: expect.arrayContaining([
          { feature: "css-display-flex", title: "display:flex", level: "unsupported", clients: expect.arrayContaining(["outlook.windows"]), count: 1 },
          expect.objectContaining({ title: "position", level: "unsupported", clients: expect.arrayContaining(["gmail.desktop-webmail", "outlook.windows"]) }),
        ]),
      },
      links: { status: "not_checked", checked_at: null, results: [] },
      spam: { status: "not_configured", score: null, threshold: null, rules: [] },
    });
    expect((await get(`/v1/messages/${id}`)).json.checks).toEqual({ authentication: "none", html: "warnings", links: "not_checked", spam: "not_configured" });
  });

  it("gives message_not_found as a message read does, and needs messages:read", async () => {
    const other = await server.bootstrap();
    const theirs = await createInbox(uniqueTag("theirs"), other);
    const id = await deliver(theirs, { subject: `Theirs ${newId("message")}`, text: "x" });
    expectError(await get(`/v1/messages/${id}/checks`), NOT_FOUND);
    expectError(await get(`/v1/messages/${newId("message")}/checks`), NOT_FOUND);
    expect((await get(`/v1/messages/${id}/checks`, other.apiKey)).status).toBe(200);
    const writer = await server.bootstrap({ scopes: ["inboxes:write"] });
    const error = expectError(await get(`/v1/messages/${id}/checks`, writer.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
    expect(error.details).toEqual({ required_scope: "messages:read" });
  });
});

describe("GET /v1/messages/{id}/body", () => {
  it("serves each whole part with its content type", async () => {
    const inbox = await createInbox();
    const subject = `Body ${newId("message")}`;
    const id = await deliver(inbox, { subject, text: "the whole text", html: "<b>the whole html</b>" });
    const text = await get(`/v1/messages/${id}/body?format=text`);
    expect([text.status, text.headers.get("content-type"), text.text]).toEqual([200, "text/plain; charset=utf-8", "the whole text"]);
    const html = await get(`/v1/messages/${id}/body?format=html`);
    expect([html.headers.get("content-type"), html.text]).toEqual(["text/html; charset=utf-8", "<b>the whole html</b>"]);
    const raw = await get(`/v1/messages/${id}/body?format=raw`);
    expect(raw.headers.get("content-type")).toBe("message/rfc822");
    expect(raw.text).toContain(`Subject: ${subject}`);
    const headers = await get(`/v1/messages/${id}/body?format=headers`);
    expect(headers.text).toMatch(new RegExp(`Subject: ${subject}`));
    expect(headers.text).not.toContain("the whole text");
  });

  it("serves the text of a row stored with a text object from text_body, where it is whole", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `Legacy ${newId("message")}`, text: "the legacy text" });
    // Rows stored before the bodies moved into the row carry a key for their text part.
    await server.db
      .updateTable("messages")
      .set({ parts: JSON.stringify({ text: { key: `projects/${server.project.projectId}/tx/gone/text.txt`, size: 15 } }) })
      .where("id", "=", id)
      .execute();
    const { text_body } = await server.db.selectFrom("messages").select("text_body").where("id", "=", id).executeTakeFirstOrThrow();
    expect(text_body).toMatch(/^the legacy text\s*$/);
    expect((await get(`/v1/messages/${id}/body?format=text`)).text).toBe(text_body);
    expect((await get(`/v1/messages/${id}`)).json.body.text.preview).toBe(text_body);
  });

  it("serves a part too large for the row from the object store, and a non-ASCII part with its byte length", async () => {
    const inbox = await createInbox();
    const big = `<p>${"y".repeat(600_000)}</p>`;
    const bigId = await deliver(inbox, { subject: `Big body ${newId("message")}`, text: "t", html: big });
    const html = await get(`/v1/messages/${bigId}/body?format=html`);
    expect([html.status, html.headers.get("content-length"), html.text === big]).toEqual([200, String(big.length), true]);
    const view = await get(`/v1/messages/${bigId}?format=html`);
    expect(view.json.body.html).toEqual({ preview: "", size: big.length, truncated: true, url: expect.stringContaining("format=html") });

    const accented = "Grüße, 🎉";
    const smallId = await deliver(inbox, { subject: `Accented ${newId("message")}`, text: accented });
    const text = await get(`/v1/messages/${smallId}/body?format=text`);
    expect([text.headers.get("content-length"), text.text]).toEqual([String(Buffer.byteLength(accented)), accented]);
  });

  it("gives unsupported_format with the available parts when the message has no such part", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `Text only ${newId("message")}`, text: "just text" });
    const error = expectError(await get(`/v1/messages/${id}/body?format=html`), { status: 400, code: "unsupported_format", retryable: false });
    expect(error.details).toEqual({ available: ["text", "raw", "headers"] });
  });

  it("refuses a missing or unknown format with invalid_request", async () => {
    expectError(await get(`/v1/messages/${newId("message")}/body`), { status: 400, code: "invalid_request", retryable: false });
    expectError(await get(`/v1/messages/${newId("message")}/body?format=pdf`), { status: 400, code: "invalid_request", retryable: false });
  });
});

describe("GET /v1/messages/{id}/body: headers for a browser", () => {
  it("never lets a part render on the API's origin: a sandboxing CSP and nosniff on every part, html and raw as attachments, text and headers inline", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `Headers ${newId("message")}`, text: "plain", html: "<p>html</p><script>alert(1)</script>" });
    const expected = { text: "inline", headers: "inline", html: `attachment; filename="${id}.html"`, raw: `attachment; filename="${id}.eml"` };
    for (const [format, disposition] of Object.entries(expected)) {
      const { status, headers } = await get(`/v1/messages/${id}/body?format=${format}`);
      expect({ format, status, disposition: headers.get("content-disposition"), nosniff: headers.get("x-content-type-options"), csp: headers.get("content-security-policy") }).toEqual({
        format,
        status: 200,
        disposition,
        nosniff: "nosniff",
        csp: "default-src 'none'; frame-ancestors 'none'; sandbox",
      });
    }
  });
});

describe("GET /v1/messages/{id}/attachments/{attachmentId}", () => {
  it("redirects with 302 to a short-lived presigned URL that serves the bytes", async () => {
    const inbox = await createInbox();
    const pdf = Buffer.from("%PDF-1.7 attachment bytes");
    const id = await deliver(inbox, { subject: `Att ${newId("message")}`, text: "see attached", attachments: [{ filename: "report.pdf", content: pdf, contentType: "application/pdf" }] });
    const view = (await get(`/v1/messages/${id}`)).json;
    const response = await fetch(view.attachments[0].url, { headers: auth(), redirect: "manual" });
    expect(response.status).toBe(302);
    const location = response.headers.get("location")!;
    // S3's presigned URL, or on the embedded stand-ins the URL mailstop signs and serves itself.
    if (server.s3 !== null) {
      expect(location).toContain(server.s3.endpoint);
      expect(location).toMatch(/X-Amz-Expires=300/);
    } else {
      expect(location.startsWith(`${server.url}/blobs/`)).toBe(true);
      const expires = Number(new URL(location).searchParams.get("expires"));
      expect(Math.abs(expires - (Date.now() / 1000 + 300))).toBeLessThan(10);
    }
    const download = await fetch(location);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it("shows and offers a hostile attachment name made safe, the stored name left as it came", async () => {
    const inbox = await createInbox();
    const subject = `Hostile name ${newId("message")}`;
    // RFC 2231 keeps the name's NUL, CR, LF and right-to-left override through transport.
    const hostile = `..\\../invoice\u202Efdp\r\n\u0000${"x".repeat(10_000)}.exe`;
    await sendWithAttachment(inbox.address, subject, ["Content-Type: application/octet-stream", `Content-Disposition: attachment; filename*=utf-8''${encodeURIComponent(hostile)}`], "bytes");
    const row = await server.stored(inbox.id, subject);
    const stored = await server.db.selectFrom("attachments").select("filename").where("message_id", "=", row.id).executeTakeFirstOrThrow();
    expect(stored.filename).toBe(hostile.replace("\u0000", "\uFFFD"));
    const view = (await get(`/v1/messages/${row.id}`)).json;
    const safe = `_._invoicefdp\uFFFD${"x".repeat(235)}.exe`;
    expect(view.attachments[0].filename).toBe(safe);
    const location = (await fetch(view.attachments[0].url, { headers: auth(), redirect: "manual" })).headers.get("location")!;
    const disposition = (await fetch(location)).headers.get("content-disposition")!;
    // An ASCII fallback (non-ASCII as "?") and the RFC 5987 name, nothing a header could be split on.
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[^\s";\\]+$/);
    expect(decodeURIComponent(disposition.split("''")[1]!)).toBe(safe);
  });

  it("answers redirect=false with the signed URL as JSON; the download is always an attachment, nosniff and sandboxed when mailstop serves it", async () => {
    const inbox = await createInbox();
    const page = Buffer.from("<script>alert(1)</script>");
    const subject = `Unnamed ${newId("message")}`;
    await sendWithAttachment(inbox.address, subject, ["Content-Type: text/html", "Content-Disposition: attachment"], page.toString());
    const row = await server.stored(inbox.id, subject);
    const view = (await get(`/v1/messages/${row.id}`)).json;
    expect(view.attachments).toEqual([expect.objectContaining({ filename: null, content_type: "text/html" })]);
    const before = Date.now();
    const link = await get(`/v1/messages/${row.id}/attachments/${view.attachments[0].id}?redirect=false`);
    expect(link.status).toBe(200);
    expect(Object.keys(link.json).sort()).toEqual(["expires_at", "url"]);
    expect(Math.abs(new Date(link.json.expires_at).getTime() - (before + 300_000))).toBeLessThan(10_000);
    const download = await fetch(link.json.url);
    expect(download.status).toBe(200);
    // No name in the message: still a download, never a page.
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="?attachment"?(;|$)/);
    if (link.json.url.startsWith(server.url)) {
      expect(download.headers.get("x-content-type-options")).toBe("nosniff");
      expect(download.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    }
    expect(Buffer.from(await download.arrayBuffer()).equals(page)).toBe(true);
  });

  it("gives attachment_not_found for an attachment the message does not have", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `No att ${newId("message")}`, text: "x" });
    expectError(await get(`/v1/messages/${id}/attachments/${newId("attachment")}`), { status: 404, code: "attachment_not_found", retryable: false });
  });
});

describe("DELETE /v1/messages/{id}", () => {
  it("tombstones at once: 200 erased, then gone from reads, and a second delete is 404", async () => {
    const inbox = await createInbox();
    const id = await deliver(inbox, { subject: `Erase ${newId("message")}`, text: "x" });
    const erased = await server.request("DELETE", `/v1/messages/${id}`);
    expect([erased.status, erased.json]).toEqual([200, { id, erased: true }]);
    expectError(await get(`/v1/messages/${id}`), NOT_FOUND);
    expectError(await get(`/v1/messages/${id}/body?format=text`), NOT_FOUND);
    expectError(await server.request("DELETE", `/v1/messages/${id}`), NOT_FOUND);
    const { data } = await server.project.client.GET("/v1/inboxes/{id}", { params: { path: { id: inbox.id } } });
    expect(data?.message_count).toBe(0);
  });

  it("needs messages:delete", async () => {
    const reader = await server.bootstrap({ scopes: ["messages:read"] });
    const error = expectError(await server.request("DELETE", `/v1/messages/${newId("message")}`, { apiKey: reader.apiKey }), {
      status: 403,
      code: "insufficient_scope",
      retryable: false,
    });
    expect(error.details).toEqual({ required_scope: "messages:delete" });
  });
});

// The suite's mail comes from senders at example.com and the like, whose DKIM, SPF and DMARC
// the parser looks up. Those lookups go to the run's loopback DNS server, never to the
// machine's resolvers: a test talks to 127.0.0.1 only, and answers the same on every machine.
describe("the suite's DNS", () => {
  it("is the run's loopback DNS server, in every world", () => {
    const runDns = process.env[RUN_DNS_ENV];
    expect(runDns).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.config.dnsServers).toEqual([runDns]);
  });
});
