import { FLEET_SERVICES, containerHealthcheck, kubernetesProbeAction } from "./fleet-services";

describe("the fleet table", () => {
  it("runs each service as `mailstop serve --target <service>`", () => {
    expect(FLEET_SERVICES.map((s) => s.name)).toEqual(["api", "waiter", "smtp-edge", "parser"]);
    for (const service of FLEET_SERVICES) expect(service.args).toEqual(["serve", "--target", service.name]);
    expect(FLEET_SERVICES.find((s) => s.name === "parser")!.replicas).toBe(2);
  });

  it("derives the same check for containers and Kubernetes from each service's health check", () => {
    const [api, , smtpEdge, parser] = FLEET_SERVICES;
    expect(containerHealthcheck(api!)).toEqual(["CMD", "node", "/app/infra/docker/healthcheck.cjs", "http", "8025", "/health"]);
    expect(kubernetesProbeAction(api!)).toEqual({ httpGet: { path: "/health", port: "http" } });
    expect(containerHealthcheck(smtpEdge!)).toEqual(["CMD", "node", "/app/infra/docker/healthcheck.cjs", "tcp", "2525"]);
    expect(kubernetesProbeAction(smtpEdge!)).toEqual({ tcpSocket: { port: "smtp" } });
    expect(containerHealthcheck(parser!)).toBeNull();
    expect(kubernetesProbeAction(parser!)).toBeNull();
  });
});
