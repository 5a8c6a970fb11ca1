/**
 * The one table of the fleet's services. docker-compose.yml, the Kubernetes manifests and
 * `startFleet` (`pnpm fleet`) all run exactly these commands on these ports with these health
 * checks; the tests beside this file fail when one of them drifts from it.
 */

/** A service of the fleet: one `mailstop serve --target` each. */
export type FleetServiceName = "api" | "waiter" | "smtp-edge" | "parser";

/** A listener of a service, on the product's default port (the port inside its container). */
export interface ServicePort {
  /** The port's name in Kubernetes and in `startFleet`'s port assignment. */
  name: "http" | "smtp" | "capture" | "ops";
  port: number;
  /** The setting that moves it (docs/configuration.md). */
  setting: "MAILSTOP_HTTP_PORT" | "MAILSTOP_SMTP_PORT" | "MAILSTOP_CAPTURE_PORT" | "MAILSTOP_OPS_PORT";
}

/**
 * How a service shows it is alive: GET /health on the listener that serves it (the HTTP
 * listener of api and waiter, the operations listener of smtp-edge and parser). The same
 * listener answers /ready (READINESS_PATH) and /metrics.
 */
export interface HealthCheck {
  kind: "http";
  port: "http" | "ops";
  path: "/health";
}

export interface FleetService {
  name: FleetServiceName;
  /** Arguments of the `mailstop` binary: the image's entrypoint, the CLI bin for `startFleet`. */
  args: readonly string[];
  ports: readonly ServicePort[];
  health: HealthCheck;
  /** Instances in docker-compose.yml and the Kubernetes minimum; `startFleet` runs one by default. */
  replicas: number;
}

const HTTP: ServicePort = { name: "http", port: 8025, setting: "MAILSTOP_HTTP_PORT" };
const SMTP: ServicePort = { name: "smtp", port: 2525, setting: "MAILSTOP_SMTP_PORT" };
const CAPTURE: ServicePort = { name: "capture", port: 2587, setting: "MAILSTOP_CAPTURE_PORT" };
/** The operations listener (/health, /ready, /metrics) of the services without an HTTP listener. */
const OPS: ServicePort = { name: "ops", port: 8026, setting: "MAILSTOP_OPS_PORT" };
const HTTP_HEALTH: HealthCheck = { kind: "http", port: "http", path: "/health" };
const OPS_HEALTH: HealthCheck = { kind: "http", port: "ops", path: "/health" };

/** The four services, in the order they are listed everywhere. */
export const FLEET_SERVICES: readonly FleetService[] = [
  { name: "api", args: ["serve", "--target", "api"], ports: [HTTP], health: HTTP_HEALTH, replicas: 1 },
  { name: "waiter", args: ["serve", "--target", "waiter"], ports: [HTTP], health: HTTP_HEALTH, replicas: 1 },
  { name: "smtp-edge", args: ["serve", "--target", "smtp-edge"], ports: [SMTP, CAPTURE, OPS], health: OPS_HEALTH, replicas: 1 },
  // BullMQ consumers: two, so a parse job survives one parser going away.
  { name: "parser", args: ["serve", "--target", "parser"], ports: [OPS], health: OPS_HEALTH, replicas: 2 },
];

/** One-shot commands run beside the services (compose services, a Kubernetes Job, `startFleet`). */
export const FLEET_JOBS = {
  /** Applies migrations before the services start (they also migrate on start, safely). */
  migrate: { args: ["migrate"] },
  /** Prints the first project's credentials (compose only: it talks to the api with the admin token). */
  bootstrap: { args: ["admin", "bootstrap", "--json"] },
} as const satisfies Record<string, { args: readonly string[] }>;

/** The Kubernetes (and compose network) name of a service's workload. */
export const workloadName = (service: FleetServiceName): string => `mailstop-${service}`;

export function fleetService(name: FleetServiceName): FleetService {
  const service = FLEET_SERVICES.find((s) => s.name === name);
  if (service === undefined) throw new Error(`no fleet service ${name}`);
  return service;
}

/** The default port of a named listener of a service. */
export function portOf(service: FleetService, name: ServicePort["name"]): ServicePort {
  const port = service.ports.find((p) => p.name === name);
  if (port === undefined) throw new Error(`${service.name} has no ${name} port`);
  return port;
}

/** Where the image keeps its health check script (infra/docker/healthcheck.cjs). */
export const IMAGE_HEALTHCHECK = "/app/infra/docker/healthcheck.cjs";

/** The route every service answers 200 on once its engines answer (503 naming what is not ready, and while it starts or stops). */
export const READINESS_PATH = "/ready";

/** Where Prometheus scrapes a service: its health listener's GET /metrics. */
export const METRICS_PATH = "/metrics";

/**
 * The container health check of a service: compose's `healthcheck.test`, run with the image's
 * node because the slim image has neither curl nor wget. Readiness, not liveness: compose has
 * one check, and `depends_on: service_healthy` means "can do its work".
 */
export function containerHealthcheck(service: FleetService): string[] {
  return ["CMD", "node", IMAGE_HEALTHCHECK, "http", String(portOf(service, service.health.port).port), READINESS_PATH];
}

/** A service's Kubernetes readiness action: /ready checks its engines (and, for the edge, that it accepts mail). */
export function kubernetesReadinessAction(service: FleetService): Record<string, unknown> {
  return { httpGet: { path: READINESS_PATH, port: service.health.port } };
}

/** A Kubernetes liveness (and startup) probe action for a service: /health, which touches no engine. */
export function kubernetesProbeAction(service: FleetService): Record<string, unknown> {
  return { httpGet: { path: service.health.path, port: service.health.port } };
}

/** The scrape annotations of a service's pods (Prometheus's kubernetes_sd relabelling convention). */
export function scrapeAnnotations(service: FleetService): Record<string, string> {
  return { "prometheus.io/scrape": "true", "prometheus.io/port": String(portOf(service, service.health.port).port), "prometheus.io/path": METRICS_PATH };
}
