/**
 * The one routing table of the HTTP edge: which service answers which path. The nginx location
 * config (compose and `startFleet`) and the Kubernetes Ingress are generated from it.
 */

/** The services behind the edge. */
export type EdgeUpstream = "api" | "waiter";

export interface EdgeRoute {
  /** `exact`: this path only (nginx `location =`, Ingress `Exact`); `prefix`: this path and below. */
  match: "exact" | "prefix";
  path: string;
  upstream: EdgeUpstream;
  /**
   * Held open for long (a blocking wait, an event stream): long proxy timeouts and no buffering
   * in either direction, so nothing sits between the waiter and the client.
   */
  longLived: boolean;
}

/**
 * Longest silence the edge allows on a long-lived request, in seconds. A wait may block for
 * 285 s (`timeout_ms` ≤ 285000) before it answers; an event stream sends a heartbeat every
 * 15 s by default. 300 s leaves a margin above the longest wait.
 */
export const LONG_LIVED_TIMEOUT_S = 300;

/**
 * Proxy timeouts of every other route. An ordinary API call answers within seconds; the longest
 * is a link check (`POST /v1/messages/{id}/checks/links`: 50 links, 4 at a time, 5 s each, so
 * up to 65 s), which 90 s leaves room for.
 */
export const DEFAULT_TIMEOUT_S = 90;

export const EDGE_ROUTES: readonly EdgeRoute[] = [
  { match: "exact", path: "/v1/messages/wait", upstream: "waiter", longLived: true },
  { match: "prefix", path: "/stream/", upstream: "waiter", longLived: true },
  // The api's MCP endpoint: a wait_for_message tool call holds its request as long as the wait
  // it makes (through this edge, to a waiter), so it is long-lived like the wait itself.
  { match: "exact", path: "/mcp", upstream: "api", longLived: true },
  { match: "prefix", path: "/", upstream: "api", longLived: false },
];

/**
 * The route nginx picks for `path`: an exact match first, else the longest matching prefix
 * (the table uses no regular expressions, so that is the whole rule). Ingress-nginx orders
 * Exact before Prefix and longer prefixes first, which picks the same route.
 */
export function routeOf(path: string, routes: readonly EdgeRoute[] = EDGE_ROUTES): EdgeRoute {
  const exact = routes.find((r) => r.match === "exact" && r.path === path);
  if (exact !== undefined) return exact;
  const prefixes = routes.filter((r) => r.match === "prefix" && path.startsWith(r.path)).sort((a, b) => b.path.length - a.path.length);
  const route = prefixes[0];
  if (route === undefined) throw new Error(`no edge route for ${path}`);
  return route;
}
