import type { AddressInfo } from "node:net";
import express from "express";
import { MailstopError } from "@mailstop/core";
import { createLogger } from "@mailstop/logging";
import { eventually } from "@mailstop/testkit";
import { accessLog } from "./access-log";
import { errorMiddleware } from "./error-middleware";
import { requestIdMiddleware } from "./request-id";

// The access log on a bare express app: one line per request, whatever way it ends.

const lines: Record<string, any>[] = [];
const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
let origin: string;
/** Called when a request reaches the route that never answers. */
let reachedHeld: () => void = () => undefined;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = express();
  app.use(requestIdMiddleware);
  app.use(accessLog(logger));
  app.get("/ok", (_req, res) => void res.json({ ok: true }));
  app.get("/broken", () => {
    throw new MailstopError("internal", "broken on purpose");
  });
  // Never answers: the client gives up first.
  app.get("/held", () => reachedHeld());
  app.use(errorMiddleware(logger));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

const lineOf = (requestId: string) =>
  eventually(async () => lines.find((line) => line.msg === "request" && line.request_id === requestId), { what: `the access line of ${requestId}` });

describe("access log", () => {
  it("writes one info line per request: id, method, path without the query, status, duration", async () => {
    const response = await fetch(`${origin}/ok?token=secret`);
    const requestId = response.headers.get("x-request-id")!;
    const line = await lineOf(requestId);
    expect(line).toMatchObject({ level: 30, req: { method: "GET", path: "/ok" }, res: { status: 200 } });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.aborted).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain("secret");
    expect(lines.filter((other) => other.request_id === requestId)).toHaveLength(1);
  });

  it("writes a 5xx at error, beside the error middleware's line with the cause", async () => {
    const response = await fetch(`${origin}/broken`);
    expect(response.status).toBe(500);
    const requestId = response.headers.get("x-request-id")!;
    expect(await lineOf(requestId)).toMatchObject({ level: 50, req: { method: "GET", path: "/broken" }, res: { status: 500 } });
    expect(lines.find((line) => line.msg === "request failed" && line.request_id === requestId)).toBeDefined();
  });

  it("writes a line for a request the client left before its response, saying so", async () => {
    const before = new Set(lines.map((line) => line.request_id));
    const reached = new Promise<void>((resolve) => (reachedHeld = resolve));
    const leaving = new AbortController();
    const response = fetch(`${origin}/held`, { signal: leaving.signal }).catch(() => null);
    await reached;
    leaving.abort();
    await response;
    const line = await eventually(async () => lines.find((other) => other.msg === "request" && !before.has(other.request_id) && other.req.path === "/held"), {
      what: "the access line of the abandoned request",
    });
    expect(line).toMatchObject({ level: 30, req: { method: "GET", path: "/held" }, aborted: true });
  });
});
