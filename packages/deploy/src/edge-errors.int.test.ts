import { type Server, createServer, request } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EDGE_ERRORS, edgeErrorBody } from "./edge-errors";
import { renderEdgeErrorsServerBody } from "./edge-errors-backend";
import { LOCATIONS_FILE } from "./generated-files";
import { type ManagedProcess, spawnManaged } from "./managed-process";
import { writeStandaloneNginx } from "./nginx-config";
import { freePort, tcpAnswers, waitUntil } from "./probes";
import { describeWithTool } from "./tools";

interface Answer {
  status: number;
  contentType: string | undefined;
  requestId: string | undefined;
  body: string;
}

/** One request; `headers` as given; `declaredLength` sends a Content-Length without the body (nginx judges the header). */
function send(url: string, method: string, path: string, declaredLength?: number, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = declaredLength === undefined ? {} : { "content-type": "application/json", "content-length": declaredLength };
    const req = request(`${url}${path}`, { method, headers: { ...headers, ...length } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], requestId: res.headers["x-request-id"] as string | undefined, body });
        req.destroy();
      });
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path}: no answer in 20 s`)));
    req.on("error", reject);
    if (declaredLength === undefined) req.end();
    else req.flushHeaders();
  });
}

/** A real nginx serving `serverBody` (the inside of a `server {}`) on a free loopback port. */
async function startNginx(directory: string, serverBody: string, upstreams: { api: string[]; waiter: string[] }): Promise<{ url: string; process: ManagedProcess }> {
  const locations = join(directory, "locations.conf");
  writeFileSync(locations, serverBody);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = writeStandaloneNginx({ prefix: directory, locations, listen: { host: "127.0.0.1", port }, upstreams });
  const nginx = spawnManaged("nginx", "nginx", args, { env: { PATH: process.env.PATH ?? "" } });
  await waitUntil("nginx answering", () => tcpAnswers("127.0.0.1", port), Date.now() + 30_000, () => (nginx.exit() === null ? null : new Error(`nginx exited: ${nginx.output()}`)));
  return { url, process: nginx };
}

const envelopeOf = (status: number) => JSON.parse(edgeErrorBody(EDGE_ERRORS.find((e) => e.status === status)!)) as unknown;

// The committed locations file behind a real nginx: what compose's edge and `pnpm fleet` run.
describeWithTool("nginx", "the edge's own answers carry mailstop's error envelope", () => {
  const ownStorageError = { error: { code: "storage_unavailable", reason: "the api's own", retryable: true } };
  let directory: string;
  let upstream: Server;
  let nginx: ManagedProcess;
  let url: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "mailstop-edge-errors-"));
    // The api: answers its own 503 on one path, 200 on the others.
    upstream = createServer((req, res) => {
      if (req.url === "/v1/own-503") res.writeHead(503, { "content-type": "application/json", "x-request-id": "req_from_the_api" }).end(JSON.stringify(ownStorageError));
      else res.end("ok");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const apiPort = (upstream.address() as { port: number }).port;
    // nginx's own 503 and 504 (no limit or slow upstream is configured to make them here):
    // `return` without a body answers as nginx does for its own errors, through error_page.
    const body = `${readFileSync(LOCATIONS_FILE, "utf8")}\nlocation = /test/503 { return 503; }\nlocation = /test/504 { return 504; }\n`;
    // The waiter's port answers nothing: the edge's 502.
    ({ url, process: nginx } = await startNginx(directory, body, { api: [`127.0.0.1:${apiPort}`], waiter: [`127.0.0.1:${await freePort()}`] }));
  });

  afterAll(async () => {
    await nginx?.stop(5_000);
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    { what: "a body over the edge's 8 MB limit", status: 413, method: "POST", path: "/v1/inboxes", length: 9 * 1024 * 1024 },
    { what: "a route whose service is down", status: 502, method: "GET", path: "/v1/messages/wait" },
    { what: "the edge's own 503", status: 503, method: "GET", path: "/test/503" },
    { what: "the edge's own 504", status: 504, method: "GET", path: "/test/504" },
  ])("$status: $what", async ({ status, method, path, length }) => {
    const answer = await send(url, method, path, length);
    expect(answer).toMatchObject({ status, contentType: "application/json" });
    expect(JSON.parse(answer.body)).toEqual(envelopeOf(status));
    expect(answer.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  });

  it("passes the api's own error through untouched: its code, its request id", async () => {
    const answer = await send(url, "GET", "/v1/own-503");
    expect(answer).toMatchObject({ status: 503, requestId: "req_from_the_api" });
    expect(JSON.parse(answer.body)).toEqual(ownStorageError);
  });
});

// The Kubernetes Ingress's default backend (edge-errors-backend.ts), its generated server run by a real nginx.
describeWithTool("nginx", "the Ingress's error backend answers in mailstop's error envelope", () => {
  let directory: string;
  let nginx: ManagedProcess;
  let url: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "mailstop-edge-backend-"));
    ({ url, process: nginx } = await startNginx(directory, renderEdgeErrorsServerBody(), { api: ["127.0.0.1:1"], waiter: ["127.0.0.1:1"] }));
  });

  afterAll(async () => {
    await nginx?.stop(5_000);
    rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    { what: "ingress-nginx's 413, passed as X-Code", xCode: "413", status: 413 },
    { what: "ingress-nginx's 502", xCode: "502", status: 502 },
    { what: "ingress-nginx's 504", xCode: "504", status: 504 },
    { what: "a route whose Service has no ready pod (no X-Code)", xCode: undefined, status: 503 },
  ])("$status: $what", async ({ xCode, status }) => {
    const answer = await send(url, "POST", "/v1/inboxes", undefined, xCode === undefined ? {} : { "x-code": xCode });
    expect(answer).toMatchObject({ status, contentType: "application/json" });
    expect(JSON.parse(answer.body)).toEqual(envelopeOf(status));
    expect(answer.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  });
});
