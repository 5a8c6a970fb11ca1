import { adminDocument, publicDocument } from "@mailstop/openapi";
import { LINK_CHECK_CONCURRENCY, LINK_CHECK_MAX_LINKS, LINK_CHECK_TIMEOUT_MS } from "@mailstop/webhooks";
import { DEFAULT_TIMEOUT_S, EDGE_ROUTES, LONG_LIVED_TIMEOUT_S, routeOf } from "./edge-routes";

/** The operations the waiter target serves (packages/api/src/waiter.routes.ts). */
const WAITER_OPERATIONS = new Set(["waitForMessage", "streamInboxEvents"]);

/** A concrete request path of an OpenAPI path template. */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, "x_01example");

describe("the edge routing table", () => {
  it("lets the longest ordinary call, a link check of the most links that all hang, finish before the edge gives up", () => {
    const longestLinkCheckS = (Math.ceil(LINK_CHECK_MAX_LINKS / LINK_CHECK_CONCURRENCY) * LINK_CHECK_TIMEOUT_MS) / 1000;
    expect(DEFAULT_TIMEOUT_S).toBeGreaterThan(longestLinkCheckS + 10);
  });

  it("sends the wait (exactly) and everything under /stream/ to the waiter, the rest to the api", () => {
    expect(routeOf("/v1/messages/wait").upstream).toBe("waiter");
    expect(routeOf("/stream/v1/inboxes/ibx_1/events").upstream).toBe("waiter");
    expect(routeOf("/v1/messages/wait/extra").upstream).toBe("api");
    expect(routeOf("/v1/messages").upstream).toBe("api");
    expect(routeOf("/streams").upstream).toBe("api");
    expect(routeOf("/health").upstream).toBe("api");
    expect(routeOf("/mcp")).toMatchObject({ upstream: "api", longLived: true });
  });

  it("routes every documented operation to the service that serves it", () => {
    for (const document of [publicDocument(), adminDocument()]) {
      for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(document.paths)) {
        for (const operation of Object.values(item)) {
          if (typeof operation !== "object" || operation?.operationId === undefined) continue;
          const expected = WAITER_OPERATIONS.has(operation.operationId) ? "waiter" : "api";
          expect({ operation: operation.operationId, upstream: routeOf(concrete(path)).upstream }).toEqual({ operation: operation.operationId, upstream: expected });
        }
      }
    }
  });

  it("holds long-lived requests longer than the longest wait, and only the waiter's and /mcp (whose tool calls wait) are long-lived", () => {
    const maxWaitMs: number = publicDocument().components.schemas.WaitRequest.properties.timeout_ms.maximum;
    expect(maxWaitMs).toBe(285_000);
    expect(LONG_LIVED_TIMEOUT_S).toBeGreaterThanOrEqual(300);
    expect(LONG_LIVED_TIMEOUT_S * 1000).toBeGreaterThan(maxWaitMs);
    for (const route of EDGE_ROUTES) expect({ path: route.path, longLived: route.longLived }).toEqual({ path: route.path, longLived: route.upstream === "waiter" || route.path === "/mcp" });
  });
});
