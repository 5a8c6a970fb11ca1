import { REPO_ROOT } from "../generated-files";
import { composeCommand, docker, run, runStreaming } from "./engine";

/** One container of a compose project, as `docker ps` sees it. */
export interface ProjectContainer {
  id: string;
  name: string;
  service: string;
  /** running, exited… */
  state: string;
  /** healthy, starting, unhealthy, or "" without a health check. */
  health: string;
  exitCode: number;
}

/**
 * `docker compose -p <name>` on the repository's docker-compose.yml, unchanged, with the
 * client the machine has (v2's `docker compose` or 1.29's `docker-compose`).
 */
export class ComposeProject {
  private readonly cli = composeCommand();

  constructor(
    readonly name: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get client(): string {
    return [this.cli.command, ...this.cli.prefix].join(" ");
  }

  /** Which builder `up --build` uses: compose v2 builds with BuildKit, 1.29 with the engine's classic builder. */
  get builder(): "buildkit" | "classic" {
    return this.cli.command === "docker" ? "buildkit" : "classic";
  }

  compose(args: string[], timeoutMs = 900_000) {
    return run(this.cli.command, [...this.cli.prefix, "-f", "docker-compose.yml", "-p", this.name, ...args], { cwd: REPO_ROOT, env: this.env, timeoutMs });
  }

  /** As compose(), its output passed on line by line (a build, `up`). */
  composeStreaming(args: string[], onLine: (line: string) => void) {
    return runStreaming(this.cli.command, [...this.cli.prefix, "-f", "docker-compose.yml", "-p", this.name, ...args], { cwd: REPO_ROOT, env: this.env, onLine });
  }

  containers(): ProjectContainer[] {
    const ids = docker(["ps", "-a", "-q", "--filter", `label=com.docker.compose.project=${this.name}`]).stdout.split("\n").filter(Boolean);
    if (ids.length === 0) return [];
    const format = '{{.Id}}|{{.Name}}|{{index .Config.Labels "com.docker.compose.service"}}|{{.State.Status}}|{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.State.ExitCode}}';
    return docker(["inspect", "--format", format, ...ids])
      .stdout.split("\n")
      .filter(Boolean)
      .map((line) => {
        const [id, name, service, state, health, exitCode] = line.split("|");
        return { id: id!, name: name!.replace(/^\//, ""), service: service!, state: state!, health: health!, exitCode: Number(exitCode) };
      });
  }

  /**
   * Waits until every long-running container is running and healthy and every one-shot
   * (`oneShots`) exited 0; fails at once when a one-shot failed or a service keeps exiting.
   */
  async waitHealthy(oneShots: readonly string[], deadlineMs: number): Promise<ProjectContainer[]> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const containers = this.containers();
      const failed = containers.filter((c) => oneShots.includes(c.service) && c.state === "exited" && c.exitCode !== 0);
      if (failed.length > 0) throw new Error(`one-shot ${failed.map((c) => `${c.service} exited ${c.exitCode}`).join(", ")}: ${this.compose(["logs", "--no-color", "--tail", "30", ...failed.map((c) => c.service)]).stdout}`);
      const waiting = containers.filter((c) => (oneShots.includes(c.service) ? c.state !== "exited" : c.state !== "running" || (c.health !== "" && c.health !== "healthy")));
      if (containers.length > 0 && waiting.length === 0) return containers;
      if (Date.now() > deadline) throw new Error(`not healthy after ${deadlineMs / 1000} s: ${waiting.map((c) => `${c.name} ${c.state} ${c.health}`).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /** A service's log as the README reads it (`docker compose logs <service>`), without compose's prefixes. */
  logs(service: string): string {
    return this.compose(["logs", "--no-color", service])
      .stdout.split("\n")
      .filter((line) => !/^Attaching to /.test(line))
      .map((line) => line.replace(/^[\w.-]+\s+\|\s?/, ""))
      .join("\n");
  }

  /** Each running container's memory, as `docker stats` reports it. */
  memory(): { name: string; memory: string }[] {
    const ids = this.containers()
      .filter((c) => c.state === "running")
      .map((c) => c.id);
    if (ids.length === 0) return [];
    return docker(["stats", "--no-stream", "--format", "{{.Name}}|{{.MemUsage}}", ...ids])
      .stdout.split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name, usage] = line.split("|");
        return { name: name!, memory: usage!.split(" / ")[0]! };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
