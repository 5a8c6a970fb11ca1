/**
 * What one held HTTP request costs a server, in RSS and heap, on node:http alone, on express 5
 * behind a middleware chain shaped like mailstop's (a request id, security headers, an
 * access-log listener, a JSON body parser, 40 other routes), and `lean`: the same middlewares
 * called in order on node:http without express's router, as mailstop's held routes are
 * (packages/http/src/held-routes.ts). The measure behind issue 22's "a lean path for held
 * connections" (docs/performance.md). Each server runs in a process of its
 * own and holds `count` POST requests that never get an answer, as a held wait does; the
 * figures are the growth after a forced GC, divided by `count`.
 * Usage: node --import tsx bench/src/tools/held-request-cost.ts [count]
 */
import { type ChildProcess, fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";

type Mode = "node:http" | "express" | "lean";

function serve(mode: Mode): void {
  const held: unknown[] = [];
  const stats = (res: http.ServerResponse) => {
    global.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    res.end(JSON.stringify({ held: held.length, rss, heap: heapUsed }));
  };
  let handler: http.RequestListener;
  if (mode === "node:http") {
    handler = (req, res) => {
      if (req.url === "/stats") return stats(res);
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk));
      req.on("end", () => held.push({ res, body: JSON.parse(body) as unknown, auth: req.headers.authorization }));
    };
  } else if (mode === "lean") {
    const parse = express.json();
    handler = (req, res) => {
      if (req.url === "/stats") return stats(res);
      const locals = { requestId: `req_${Math.random().toString(36).slice(2)}`, startedAt: Date.now() };
      res.setHeader("x-request-id", locals.requestId);
      res.setHeader("x-content-type-options", "nosniff");
      res.setHeader("cache-control", "no-store");
      res.on("close", () => undefined);
      parse(req as express.Request, res as express.Response, () => held.push({ res, locals, body: (req as express.Request).body as unknown, auth: req.headers.authorization }));
    };
  } else {
    const app = express();
    app.use((_req, res, next) => {
      res.locals.requestId = `req_${Math.random().toString(36).slice(2)}`;
      res.setHeader("x-request-id", res.locals.requestId as string);
      next();
    });
    app.use((_req, res, next) => {
      res.setHeader("x-content-type-options", "nosniff");
      res.setHeader("cache-control", "no-store");
      next();
    });
    app.use((_req, res, next) => {
      res.locals.startedAt = Date.now();
      res.on("close", () => undefined);
      next();
    });
    app.use(express.json());
    for (let i = 0; i < 40; i++) app.get(`/v1/route${i}/:id`, (_req, res) => void res.json({}));
    app.get("/stats", (_req, res) => stats(res));
    app.post("/v1/messages/wait", (req, res) => void held.push({ res, body: req.body as unknown, auth: req.headers.authorization }));
    handler = app;
  }
  const server = http.createServer({ keepAliveTimeout: 0, requestTimeout: 0, headersTimeout: 0 }, handler);
  server.listen(0, "127.0.0.1", () => process.send?.((server.address() as AddressInfo).port));
}

async function measure(mode: Mode, count: number): Promise<void> {
  const child: ChildProcess = fork(__filename, ["--serve", mode], { execArgv: ["--import", "tsx", "--expose-gc"] });
  try {
    const port = await new Promise<number>((resolve) => child.once("message", (message) => resolve(message as number)));
    const read = () =>
      new Promise<{ held: number; rss: number; heap: number }>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port, path: "/stats", agent: false }, (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk));
          res.on("end", () => resolve(JSON.parse(body)));
        }).on("error", reject);
      });
    const before = await read();
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const body = JSON.stringify({ inbox: "signup.a1b2c3@mailstop.test", timeout_ms: 120_000 });
    const headers = { "content-type": "application/json", authorization: `Bearer is_test_${"x".repeat(43)}`, "content-length": String(Buffer.byteLength(body)) };
    for (let i = 0; i < count; i++) {
      http.request({ host: "127.0.0.1", port, method: "POST", path: "/v1/messages/wait", agent, headers }).on("error", () => undefined).end(body);
      if (i % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let after = await read();
    while (after.held < count) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await read();
    }
    agent.destroy();
    const kb = (bytes: number) => `${(bytes / count / 1024).toFixed(1)} KB`;
    console.log(`${mode.padEnd(9)} ${count} held: RSS ${kb(after.rss - before.rss)} and heap ${kb(after.heap - before.heap)} a request (RSS ${(before.rss / 1e6).toFixed(0)} MB before)`);
  } finally {
    child.kill();
  }
}

if (process.argv[2] === "--serve") serve(process.argv[3] as Mode);
else {
  const count = Number(process.argv[2] ?? 10_000);
  void (async () => {
    for (const mode of ["node:http", "lean", "express", "node:http", "lean", "express"] as const) await measure(mode, count);
  })();
}
