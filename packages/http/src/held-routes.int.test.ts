import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MailstopError } from "@mailstop/core";
import type { Db } from "@mailstop/db";
import { createLogger } from "@mailstop/logging";
import type { OpenApiDocument } from "@mailstop/openapi";
import { eventually } from "@mailstop/testkit";
import type { ApiKeyLookup } from "./api-key-cache";
import { createHttpApp } from "./create-http-app";
import { createHttpServer } from "./create-http-server";
import { type RouteDefinition, heldRoute } from "./route";

// Held routes (waits, streams) are served below express's router, through the app's own
// middlewares, handler chain and error envelope: a request must not tell the difference.

const document = {
  openapi: "3.1.0",
  info: { title: "held routes", version: "1" },
  paths: {
    "/v1/held": {
      post: {
        operationId: "holdIt",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false } } },
        },
        responses: { "200": { description: "ok" } },
      },
    },
    "/v1/held/{id}/events": {
      get: {
        operationId: "followIt",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "after", in: "query", schema: { type: "integer" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
    "/v1/plain": { get: { operationId: "plain", responses: { "200": { description: "ok" } } } },
    "/v1/plain/{id}": {
      get: { operationId: "plainItem", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
    },
  },
} as unknown as OpenApiDocument;

const open = (operationId: string, handle: RouteDefinition["handle"]): RouteDefinition => ({ operationId, access: "none", handle });

const lines: Record<string, any>[] = [];
const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
const observed: { route: string; status: number }[] = [];
/** The URLs that reached express's router. */
const reachedExpress: string[] = [];
let handled: string[] = [];
let reachedLeft: () => void = () => undefined;
let server: Server;
let origin: string;

beforeAll(async () => {
  const routes = [
    heldRoute(
      open("holdIt", async ({ body, req, res }) => {
        handled.push(`holdIt ${req.url}`);
        if (body.n === 13) throw new MailstopError("concurrency_limit", "Thirteen is too many.", { retryAfterSeconds: 1, details: { limit: 12 } });
        if (body.n === 0) {
          reachedLeft();
          await once(res, "close");
          return undefined;
        }
        return { status: 200, body: { n: body.n } };
      }),
    ),
    heldRoute(
      open("followIt", async ({ params, query }) => {
        handled.push(`followIt ${params.id}`);
        return { status: 200, body: { id: params.id, after: query.after ?? null } };
      }),
    ),
    open("plain", async () => ({ status: 200, body: { plain: true } })),
    open("plainItem", async ({ params }) => ({ status: 200, body: { id: params.id } })),
  ];
  const { app, held } = createHttpApp({
    db: null as unknown as Db,
    keys: null as unknown as ApiKeyLookup,
    region: "us",
    adminToken: null,
    rateLimits: null,
    logger,
    observeRequest: (route, _method, status) => void observed.push({ route, status }),
    contributions: [{ document, routes, setup: (express) => void express.use((req, _res, next) => (reachedExpress.push(req.url), next())) }],
  });
  server = createHttpServer(app, held).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});
beforeEach(() => {
  handled = [];
  reachedExpress.length = 0;
});

const post = (path: string, body: string) => fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("held routes", () => {
  it("are answered by their handler without reaching express's router, with the headers every response carries", async () => {
    const response = await post("/v1/held", '{"n":7}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ n: 7 });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(handled).toEqual(["holdIt /v1/held"]);
    expect(reachedExpress).toEqual([]);

    // The control: a route that is not held goes through the router.
    expect(await (await fetch(`${origin}/v1/plain`)).json()).toEqual({ plain: true });
    expect(reachedExpress).toEqual(["/v1/plain"]);
  });

  it("take path parameters decoded and the query coerced as the router's routes do, matched case-insensitively, a trailing slash allowed", async () => {
    const response = await fetch(`${origin}/V1/Held/a%20b%2Fc/events/?after=5`);
    expect(await response.json()).toEqual({ id: "a b/c", after: 5 });
    expect(reachedExpress).toEqual([]);
  });

  it("answer a thrown error with the error envelope, Retry-After, the request id and the access line of the operation", async () => {
    const response = await post("/v1/held", '{"n":13}');
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    const requestId = response.headers.get("x-request-id");
    expect(await response.json()).toMatchObject({ error: { code: "concurrency_limit", retryable: true, details: { limit: 12 } } });
    const line = await eventually(async () => lines.find((other) => other.msg === "request" && other.request_id === requestId), { what: "the access line" });
    expect(line).toMatchObject({ req: { method: "POST", path: "/v1/held" }, res: { status: 429 } });
    expect(observed).toContainEqual({ route: "holdIt", status: 429 });
  });

  it("validate the body against the document: malformed JSON and a body that breaks the schema are 400 invalid_request, never handled", async () => {
    const malformed = await post("/v1/held", "{");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: "invalid_request", details: { errors: [{ in: "body", message: "is not valid JSON" }] } } });
    const invalid = await post("/v1/held", '{"n":"seven"}');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: "invalid_request", details: { errors: [expect.objectContaining({ in: "body", path: "/n" })] } } });
    expect(handled).toEqual([]);
  });

  it("leave to express another method on their path", async () => {
    const wrongMethod = await fetch(`${origin}/v1/held`);
    expect(wrongMethod.status).toBe(404);
    expect(await wrongMethod.json()).toMatchObject({ error: { code: "invalid_request" } });
    expect(reachedExpress).toEqual(["/v1/held"]);
    expect(handled).toEqual([]);
  });

  it("answer a path parameter that is not valid percent-encoding 400 invalid_request, as the router's routes do, never handled", async () => {
    for (const path of ["/v1/held/%E0%A4%A/events", "/v1/plain/%E0%A4%A"]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(400);
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
      expect(await response.json()).toMatchObject({ error: { code: "invalid_request", retryable: false, details: { errors: [{ in: "path" }] } } });
    }
    expect(reachedExpress).toEqual(["/v1/plain/%E0%A4%A"]);
    expect(handled).toEqual([]);
  });

  it("write the access line of a request its client left, saying so", async () => {
    const reached = new Promise<void>((resolve) => (reachedLeft = resolve));
    const leaving = new AbortController();
    const left = fetch(`${origin}/v1/held`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"n":0}', signal: leaving.signal }).catch(() => null);
    await reached;
    leaving.abort();
    await left;
    const line = await eventually(async () => lines.find((other) => other.msg === "request" && other.aborted === true && other.req.path === "/v1/held"), {
      what: "the access line of the abandoned request",
    });
    expect(line).toMatchObject({ req: { method: "POST" }, aborted: true });
  });
});
