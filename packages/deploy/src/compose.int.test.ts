import { spawnSync } from "node:child_process";
import { parse } from "yaml";
import { FLEET_SERVICES } from "./fleet-services";
import { REPO_ROOT } from "./generated-files";
import { describeWithTool } from "./tools";

const compose = (...args: string[]) => spawnSync("docker-compose", ["-f", "docker-compose.yml", ...args], { cwd: REPO_ROOT, encoding: "utf8", timeout: 30_000 });

describeWithTool("docker-compose", "docker-compose.yml, as docker-compose reads it", () => {
  it("is valid (docker-compose config -q)", () => {
    const result = compose("config", "-q");
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
  });

  it("resolves every fleet service to the table's command once anchors and merges are applied", () => {
    const result = compose("config");
    expect(result.status).toBe(0);
    const { services } = parse(result.stdout) as { services: Record<string, { command: string[] }> };
    for (const service of FLEET_SERVICES) expect({ service: service.name, command: services[service.name]?.command }).toEqual({ service: service.name, command: service.args });
  });
});
