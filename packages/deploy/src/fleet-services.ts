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
  name: "http" | "smtp" | "capture";
  port: number;
  /** The setting that moves it (docs/configuration.md). */
  setting: "MAILSTOP_HTTP_PORT" | "MAILSTOP_SMTP_PORT" | "MAILSTOP_CAPTURE_PORT";
}

/**
 * How a service shows it is alive. `started`: the service has no listener, so the only signal
 * is its process running (and, for `startFleet`, its `mailstop started` log line).
 */
export type HealthCheck = { kind: "http"; port: "http"; path: "/health" } | { kind: "tcp"; port: "smtp" } | { kind: "started" };

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
const HTTP_HEALTH: HealthCheck = { kind: "http", port: "http", path: "/health" };

/** The four services, in the order they are listed everywhere. */
export const FLEET_SERVICES: readonly FleetService[] = [
  { name: "api", args: ["serve", "--target", "api"], ports: [HTTP], health: HTTP_HEALTH, replicas: 1 },
  { name: "waiter", args: ["serve", "--target", "waiter"], ports: [HTTP], health: HTTP_HEALTH, replicas: 1 },
  { name: "smtp-edge", args: ["serve", "--target", "smtp-edge"], ports: [SMTP, CAPTURE], health: { kind: "tcp", port: "smtp" }, replicas: 1 },
  // BullMQ consumers: two, so a parse job survives one parser going away.
  { name: "parser", args: ["serve", "--target", "parser"], ports: [], health: { kind: "started" }, replicas: 2 },
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

/**
 * The container health check of a service: compose's `healthcheck.test`, run with the image's
 * node because the slim image has neither curl nor wget. Null when the service has no listener.
 */
export function containerHealthcheck(service: FleetService): string[] | null {
  const { health } = service;
  switch (health.kind) {
    case "http":
      return ["CMD", "node", IMAGE_HEALTHCHECK, "http", String(portOf(service, health.port).port), health.path];
    case "tcp":
      return ["CMD", "node", IMAGE_HEALTHCHECK, "tcp", String(portOf(service, health.port).port)];
    case "started":
      return null;
  }
}

/** The route an HTTP service answers 200 on once its engines answer (503 naming what is not ready). */
export const READINESS_PATH = "/ready";

/**
 * A service's Kubernetes readiness action: the HTTP services' /ready checks their engines; the
 * others take no HTTP traffic through a Service to hold back, so their liveness action serves.
 */
export function kubernetesReadinessAction(service: FleetService): Record<string, unknown> | null {
  return service.health.kind === "http" ? { httpGet: { path: READINESS_PATH, port: service.health.port } } : kubernetesProbeAction(service);
}

/** A Kubernetes liveness (and startup) probe action for a service. */
export function kubernetesProbeAction(service: FleetService): Record<string, unknown> | null {
  const { health } = service;
  switch (health.kind) {
    case "http":
      return { httpGet: { path: health.path, port: health.port } };
    case "tcp":
      return { tcpSocket: { port: health.port } };
    case "started":
      return null;
  }
}
