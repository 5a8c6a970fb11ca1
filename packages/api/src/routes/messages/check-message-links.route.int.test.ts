import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { newId } from "@mailstop/core";
import { type TestDns, expectError, startTestDns, uniqueTag, useTestServer } from "@mailstop/testkit";

// The link check on request, against real HTTP servers on loopback: 127.0.0.1 is the one
// network the allow list admits (as 127.0.0.2 is in the webhook suites), so ::1 stands for a
// refused address, and a server listening there proves the guard refused before connecting.
// Names resolve through a test DNS server of the suite's own, never the system's resolvers.

let dns: TestDns | undefined;
beforeAll(async () => {
  dns = await startTestDns();
});
const server = useTestServer(async () => ({ mail: true, env: { MAILSTOP_DNS_SERVERS: dns!.server, MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.1/32" } }));

interface Site {
  origin: string;
  port: number;
  /** Every request, as `METHOD path`, in arrival order. */
  requests: string[];
  /** Connections accepted. */
  connections: number;
  stop(): Promise<void>;
}

/**
 * A site on `host`: `/ok` 200; `/missing` 404; `/chain/<n>` redirects to `/chain/<n-1>` until
 * `/chain/0`, which is 200; `/no-head` refuses HEAD (405) and answers GET; `/to/<url>` redirects
 * to the URL; `/hang/…` never answers.
 */
async function startSite(host: string): Promise<Site> {
  const site = { requests: [] as string[], connections: 0 };
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    site.requests.push(`${req.method} ${path}`);
    const redirect = (location: string) => res.writeHead(302, { location }).end();
    if (path === "/ok") return res.writeHead(200).end("fine");
    if (path === "/missing") return res.writeHead(404).end("gone");
    if (path === "/no-head") return res.writeHead(req.method === "HEAD" ? 405 : 200).end();
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain) return Number(chain[1]) === 0 ? res.writeHead(200).end() : redirect(`/chain/${Number(chain[1]) - 1}`);
    if (path.startsWith("/to/")) return redirect(decodeURIComponent(path.slice("/to/".length)));
    if (path.startsWith("/hang/")) return;
    res.writeHead(500).end();
  };
  const http: Server = createServer(answer);
  http.on("connection", () => site.connections++);
  await new Promise<void>((resolve, reject) => http.once("error", reject).listen(0, host, resolve));
  const port = (http.address() as AddressInfo).port;
  return Object.assign(site, {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  });
}

/** A loopback port nothing listens on (it was bound, then closed). */
async function refusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let site: Site;
let refused: Site;
beforeAll(async () => {
  site = await startSite("127.0.0.1");
  refused = await startSite("::1");
});
afterAll(async () => {
  await site?.stop();
  await refused?.stop();
  await dns?.stop();
});

/** Delivers a message whose HTML links to `urls`, in that order, and returns its id. */
async function messageLinkingTo(urls: readonly string[]): Promise<string> {
  const inbox = await server.createInbox({ tag: uniqueTag("links") });
  const html = `<p>${urls.map((url, n) => `<a href="${url}">link ${n}</a>`).join(" ")}</p>`;
  return (await server.deliver(inbox, { subject: `Links ${newId("message")}`, html, text: "see the links" })).id;
}

const check = (id: string, apiKey?: string) => server.request("POST", `/v1/messages/${id}/checks/links`, apiKey === undefined ? {} : { apiKey });
const NOT_FOUND = { status: 404, code: "message_not_found", retryable: false } as const;

describe("POST /v1/messages/{id}/checks/links", () => {
  it("requests each link through the address guard: 200, 404, HEAD refused, redirects up to 5, a hang, a refused port, refused and unknown addresses", async () => {
    const domain = `${uniqueTag("site")}.links.test`.toLowerCase();
    dns!.set(`www.${domain}`, { a: ["127.0.0.1"] });
    dns!.set(`both.${domain}`, { a: ["127.0.0.1"], aaaa: ["::1"] });
    const closed = await refusedPort();
    const links = [
      `${site.origin}/ok`,
      `${site.origin}/missing`,
      `${site.origin}/no-head`,
      `${site.origin}/chain/5`,
      `${site.origin}/chain/6`,
      `${site.origin}/hang/alone`,
      `http://127.0.0.1:${closed}/ok`,
      `${refused.origin}/ok`,
      `${site.origin}/to/${encodeURIComponent(`${refused.origin}/ok`)}`,
      `http://www.${domain}:${site.port}/ok`,
      `http://both.${domain}:${site.port}/ok`,
      `http://nowhere.${domain}:${site.port}/ok`,
    ];
    const id = await messageLinkingTo(links);
    const started = performance.now();
    const { status, json } = await check(id);
    const took = performance.now() - started;
    expect(status).toBe(200);
    const result = (url: string, fields: { ok?: boolean; status_code: number | null; redirects?: number; final_url?: string; error: string | null }) => ({
      url,
      ok: fields.ok ?? false,
      status_code: fields.status_code,
      redirects: fields.redirects ?? 0,
      final_url: fields.final_url ?? url,
      error: fields.error,
    });
    expect(json).toEqual({
      status: "broken",
      checked_at: expect.any(String),
      results: [
        result(links[0]!, { ok: true, status_code: 200, error: null }),
        result(links[1]!, { status_code: 404, error: null }),
        result(links[2]!, { ok: true, status_code: 200, error: null }),
        result(links[3]!, { ok: true, status_code: 200, redirects: 5, final_url: `${site.origin}/chain/0`, error: null }),
        result(links[4]!, { status_code: 302, redirects: 5, final_url: `${site.origin}/chain/1`, error: "too_many_redirects" }),
        result(links[5]!, { status_code: null, error: "timeout" }),
        result(links[6]!, { status_code: null, error: "connection" }),
        result(links[7]!, { status_code: null, error: "blocked_address" }),
        result(links[8]!, { status_code: null, redirects: 1, final_url: `${refused.origin}/ok`, error: "blocked_address" }),
        result(links[9]!, { ok: true, status_code: 200, error: null }),
        result(links[10]!, { status_code: null, error: "blocked_address" }),
        result(links[11]!, { status_code: null, error: "dns" }),
      ],
    });
    expect(new Date(json.checked_at).toISOString()).toBe(json.checked_at);
    // The hang took its 5 s, no more; the rest went on beside it.
    expect(took).toBeGreaterThanOrEqual(4_900);
    expect(took).toBeLessThan(9_000);
    // HEAD first, then GET where HEAD was refused; a redirect chain stops at the sixth redirect.
    expect(site.requests.filter((request) => request.endsWith("/no-head"))).toEqual(["HEAD /no-head", "GET /no-head"]);
    expect(site.requests.filter((request) => request.startsWith("HEAD /chain/"))).toEqual(expect.arrayContaining(["HEAD /chain/6", "HEAD /chain/1", "HEAD /chain/0"]));
    expect(site.requests.filter((request) => request === "HEAD /chain/1")).toHaveLength(2);
    expect(site.requests.filter((request) => request === "HEAD /chain/0")).toHaveLength(1);
    // The refused address was never connected to: the guard refused it first, on every path to it.
    expect([refused.connections, refused.requests]).toEqual([0, []]);
  });

  it("stores the result with the message: GET …/checks and the message view read it, a new check replaces it, the other checks stay, and it goes with the message", async () => {
    const id = await messageLinkingTo([`${site.origin}/ok`, `${site.origin}/missing`, `${site.origin}/ok`]);
    const before = (await server.request("GET", `/v1/messages/${id}/checks`)).json;
    expect(before.links).toEqual({ status: "not_checked", checked_at: null, results: [] });
    const viewBefore = (await server.request("GET", `/v1/messages/${id}`)).json.checks;
    expect(viewBefore.links).toBe("not_checked");

    const first = await check(id);
    expect(first.status).toBe(200);
    // The same URL twice in the message is requested once.
    expect(first.json.results.map((result: { url: string; ok: boolean }) => [result.url, result.ok])).toEqual([
      [`${site.origin}/ok`, true],
      [`${site.origin}/missing`, false],
    ]);
    const stored = (await server.request("GET", `/v1/messages/${id}/checks`)).json;
    expect(stored).toEqual({ ...before, links: first.json });
    expect((await server.request("GET", `/v1/messages/${id}`)).json.checks).toEqual({ ...viewBefore, links: "broken" });

    const second = await check(id);
    expect(second.json.checked_at >= first.json.checked_at).toBe(true);
    expect((await server.request("GET", `/v1/messages/${id}/checks`)).json).toEqual({ ...before, links: second.json });

    expect((await server.request("DELETE", `/v1/messages/${id}`)).status).toBe(200);
    expectError(await server.request("GET", `/v1/messages/${id}/checks`), NOT_FOUND);
    expectError(await check(id), NOT_FOUND);
  });

  it("reads ok without links; gives message_not_found as a message read does, and needs messages:read", async () => {
    const none = await messageLinkingTo([]);
    const { status, json } = await check(none);
    expect([status, json]).toEqual([200, { status: "ok", checked_at: expect.any(String), results: [] }]);

    const other = await server.bootstrap();
    const theirs = await server.createInbox({ tag: uniqueTag("theirs") }, other);
    const id = (await server.deliver(theirs, { subject: `Theirs ${newId("message")}`, html: `<a href="${site.origin}/ok">x</a>` })).id;
    const asked = site.requests.length;
    expectError(await check(id), NOT_FOUND);
    expectError(await check(newId("message")), NOT_FOUND);
    expectError(await check("not-an-id"), NOT_FOUND);
    const reader = await server.bootstrap({ scopes: ["inboxes:write"] });
    const error = expectError(await check(id, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
    expect(error.details).toEqual({ required_scope: "messages:read" });
    // Refused: nothing was requested.
    expect(site.requests.length).toBe(asked);
    expect((await check(id, other.apiKey)).json.status).toBe("ok");
  });
});
