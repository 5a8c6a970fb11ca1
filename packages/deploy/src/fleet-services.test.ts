import { FLEET_SERVICES, containerHealthcheck, kubernetesProbeAction, kubernetesReadinessAction, scrapeAnnotations } from "./fleet-services";

describe("the fleet table", () => {
  it("runs each service as `mailstop serve --target <service>`", () => {
    expect(FLEET_SERVICES.map((s) => s.name)).toEqual(["api", "waiter", "smtp-edge", "parser"]);
    for (const service of FLEET_SERVICES) expect(service.args).toEqual(["serve", "--target", service.name]);
    expect(FLEET_SERVICES.find((s) => s.name === "parser")!.replicas).toBe(2);
  });

  it("gives every service an operations or HTTP listener on MAILSTOP_OPS_PORT or MAILSTOP_HTTP_PORT", () => {
    for (const service of FLEET_SERVICES) {
      expect(service.ports.map((p) => p.setting)).toContain(service.health.port === "ops" ? "MAILSTOP_OPS_PORT" : "MAILSTOP_HTTP_PORT");
    }
  });

  it("derives the same check for containers and Kubernetes from each service's health check", () => {
    const [api, , smtpEdge, parser] = FLEET_SERVICES;
    expect(containerHealthcheck(api!)).toEqual(["CMD", "node", "/app/infra/docker/healthcheck.cjs", "http", "8025", "/ready"]);
    expect(kubernetesProbeAction(api!)).toEqual({ httpGet: { path: "/health", port: "http" } });
    expect(kubernetesReadinessAction(api!)).toEqual({ httpGet: { path: "/ready", port: "http" } });
    // The services without an HTTP listener answer on their operations listener.
    for (const service of [smtpEdge!, parser!]) {
      expect(containerHealthcheck(service)).toEqual(["CMD", "node", "/app/infra/docker/healthcheck.cjs", "http", "8026", "/ready"]);
      expect(kubernetesProbeAction(service)).toEqual({ httpGet: { path: "/health", port: "ops" } });
      expect(kubernetesReadinessAction(service)).toEqual({ httpGet: { path: "/ready", port: "ops" } });
      expect(scrapeAnnotations(service)).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": "8026", "prometheus.io/path": "/metrics" });
    }
  });
});
