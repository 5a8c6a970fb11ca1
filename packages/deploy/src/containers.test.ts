import { existsSync, readFileSync, readdirSync } from "node:fs";
import { relative, resolve } from "node:path";
import dockerignore from "@balena/dockerignore";
import { BUNDLED_ARTICLES_DIR } from "@mailstop/api";
import { validate } from "dockerfile-utils";
import { parse } from "yaml";
import { FLEET_JOBS, FLEET_SERVICES, containerHealthcheck, portOf } from "./fleet-services";
import { REPO_ROOT } from "./generated-files";
import { COMPOSE_EDGE_PORT, COMPOSE_LOCATIONS_PATH } from "./nginx-config";

// Reads the committed files (no process, no network): the shape of docker-compose.yml and the
// Dockerfile against the fleet table. compose.int.test.ts runs docker-compose itself on them.

const read = (path: string) => readFileSync(resolve(REPO_ROOT, path), "utf8");

/** The Dockerfile's instructions: continuation lines joined, comments dropped. */
function instructions(dockerfile: string): { keyword: string; args: string }[] {
  return dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(" ") };
    });
}

describe("infra/docker/Dockerfile", () => {
  const dockerfile = read("infra/docker/Dockerfile");
  const all = instructions(dockerfile);
  const runtimeStart = all.findIndex((i) => i.keyword === "FROM" && / AS runtime$/.test(i.args));
  const runtime = all.slice(runtimeStart);

  it("has no lint errors (dockerfile-utils)", () => {
    expect(validate(dockerfile).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("builds with every builder: no `# syntax=` frontend image, no RUN --mount, and the ignore file at the root", () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax=/im);
    expect(all.filter((i) => i.keyword === "RUN" && i.args.startsWith("--mount"))).toEqual([]);
    // BuildKit's frontend would read infra/docker/Dockerfile.dockerignore instead of the root's, the classic builder never.
    expect(existsSync(resolve(REPO_ROOT, "infra/docker/Dockerfile.dockerignore"))).toBe(false);
    expect(existsSync(resolve(REPO_ROOT, ".dockerignore"))).toBe(true);
  });

  it("is based on Node 24 unless NODE_IMAGE says otherwise", () => {
    expect(all[0]).toEqual({ keyword: "ARG", args: "NODE_IMAGE=node:24-bookworm-slim" });
    expect(all.filter((i) => i.keyword === "FROM").map((i) => i.args.split(" ")[0])).toEqual(["${NODE_IMAGE}", "${NODE_IMAGE}"]);
  });

  it("takes the registry's extra certificate authorities in the build stage only, never into the runtime stage", () => {
    const build = all.slice(0, runtimeStart);
    expect(build.some((i) => i.keyword === "ARG" && i.args.startsWith("BUILD_EXTRA_CA_CERTS="))).toBe(true);
    expect(runtime.filter((i) => i.args.includes("BUILD_EXTRA_CA_CERTS"))).toEqual([]);
    // Each step that writes the certificates removes them in the same step, so no layer keeps them.
    for (const step of build.filter((i) => i.keyword === "RUN" && i.args.includes("/tmp/extra-ca.pem"))) expect(step.args).toMatch(/rm -f \/tmp\/extra-ca\.pem$/);
  });

  it("keeps the bundled articles in the build context: the root .dockerignore does not ignore them", () => {
    expect(all.some((i) => i.keyword === "COPY" && i.args === ". .")).toBe(true);
    // Read with Docker's own matching rules (@balena/dockerignore), not a hand-written glob.
    const ignored = dockerignore().add(read(".dockerignore").split("\n"));
    const articles = readdirSync(BUNDLED_ARTICLES_DIR).map((name) => relative(REPO_ROOT, resolve(BUNDLED_ARTICLES_DIR, name)));
    expect(articles.length).toBeGreaterThan(0);
    for (const path of articles) expect({ path, ignored: ignored.ignores(path) }).toEqual({ path, ignored: false });
    expect(ignored.ignores("node_modules/x")).toBe(true);
    expect(ignored.ignores("packages/db/node_modules/x")).toBe(true);
  });

  it("compiles mailstop, the viewer and the embedded template in a build stage and ships only what runtime-files.cjs gathers", () => {
    const build = all.slice(0, runtimeStart);
    expect(all.findIndex((i) => i.keyword === "FROM" && / AS build$/.test(i.args))).toBe(1);
    const steps = build.filter((i) => i.keyword === "RUN").map((i) => i.args).join(" && ");
    for (const command of [
      "pnpm install --frozen-lockfile --offline",
      "node packages/db/bin/build-embedded-template.cjs",
      "pnpm --filter @mailstop/viewer build",
      "pnpm --filter @mailstop/cli build",
      "node infra/docker/runtime-files.cjs /src /app",
    ]) {
      expect({ command, run: steps.includes(command) }).toEqual({ command, run: true });
    }
    expect(runtime.filter((i) => i.keyword === "COPY").map((i) => i.args)).toEqual(["--from=build /app /app", "--from=build --chown=1000:1000 /app/data /data"]);
    expect(runtime.filter((i) => i.keyword === "RUN")).toEqual([]);
  });

  it("runs as a non-root user, listening on every interface, with a health check and the compiled mailstop as its entrypoint", () => {
    const user = runtime.filter((i) => i.keyword === "USER").at(-1)?.args;
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user);
    const env = runtime.filter((i) => i.keyword === "ENV").map((i) => i.args).join(" ");
    expect(env).toMatch(/\bMAILSTOP_HOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bTARGET=all\b/);
    expect(runtime.some((i) => i.keyword === "HEALTHCHECK" && i.args.includes("CMD"))).toBe(true);
    expect(runtime.filter((i) => i.keyword === "ENTRYPOINT").at(-1)?.args).toBe('["/app/infra/docker/entrypoint.sh"]');
    const entrypoint = read("infra/docker/entrypoint.sh");
    expect(entrypoint).toContain('set -- serve --target "${TARGET:-all}"');
    // The compiled bundle, not the TypeScript through tsx.
    expect(entrypoint).toContain('exec node --enable-source-maps --max-semi-space-size=16 /app/packages/cli/dist/mailstop.cjs "$@"');
  });
});

describe("docker-compose.yml", () => {
  const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, any> };
  const { services } = compose;

  it.each(FLEET_SERVICES.map((s) => [s.name, s] as const))("%s runs the table's command, health check and replicas on the image", (name, service) => {
    const defined = services[name];
    expect(defined.image).toBe("mailstop:local");
    expect(defined.entrypoint).toBeUndefined();
    expect(defined.command).toEqual(service.args);
    expect(defined.healthcheck?.test ?? null).toEqual(containerHealthcheck(service));
    expect(defined.deploy?.replicas ?? 1).toBe(service.replicas);
  });

  it("runs the table's one-shot commands, migrations before every service", () => {
    expect(services.migrate.command).toEqual(FLEET_JOBS.migrate.args);
    expect(services.bootstrap.command).toEqual(FLEET_JOBS.bootstrap.args);
    for (const service of FLEET_SERVICES) expect(services[service.name].depends_on.migrate).toEqual({ condition: "service_completed_successfully" });
  });

  it("publishes SMTP 25 and 587 from the smtp-edge's listeners", () => {
    const edge = FLEET_SERVICES.find((s) => s.name === "smtp-edge")!;
    expect(services["smtp-edge"].ports).toEqual([`25:${portOf(edge, "smtp").port}`, `587:${portOf(edge, "capture").port}`]);
  });

  it("fronts api and waiter with the generated nginx config on one HTTP port", () => {
    expect(services.edge.volumes).toEqual([
      "./infra/nginx/compose.conf:/etc/nginx/conf.d/default.conf:ro",
      `./infra/nginx/mailstop-locations.conf:${COMPOSE_LOCATIONS_PATH}:ro`,
    ]);
    expect(services.edge.ports).toEqual([`8025:${COMPOSE_EDGE_PORT}`]);
    expect(services.edge.depends_on).toEqual({ api: { condition: "service_healthy" }, waiter: { condition: "service_healthy" } });
  });
});
