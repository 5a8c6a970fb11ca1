import { readFileSync, readdirSync } from "node:fs";
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

  it("installs the lockfile's dependencies in a deps stage, and runs from a separate runtime stage", () => {
    const deps = all.slice(all.findIndex((i) => i.keyword === "FROM" && / AS deps$/.test(i.args)), runtimeStart);
    expect(deps.some((i) => i.keyword === "RUN" && i.args.includes("pnpm install --frozen-lockfile"))).toBe(true);
    expect(runtimeStart).toBeGreaterThan(0);
    expect(runtime.some((i) => i.keyword === "COPY" && i.args.startsWith("--from=deps "))).toBe(true);
  });

  it("ships the bundled articles: the deps stage copies the build context, and its .dockerignore keeps them", () => {
    const deps = all.slice(all.findIndex((i) => i.keyword === "FROM" && / AS deps$/.test(i.args)), runtimeStart);
    expect(deps.some((i) => i.keyword === "COPY" && i.args === ". .")).toBe(true);
    // Read with Docker's own matching rules (@balena/dockerignore), not a hand-written glob.
    const ignored = dockerignore().add(read("infra/docker/Dockerfile.dockerignore").split("\n"));
    const articles = readdirSync(BUNDLED_ARTICLES_DIR).map((name) => relative(REPO_ROOT, resolve(BUNDLED_ARTICLES_DIR, name)));
    expect(articles.length).toBeGreaterThan(0);
    for (const path of articles) expect({ path, ignored: ignored.ignores(path) }).toEqual({ path, ignored: false });
  });

  it("builds the compiled mailstop and the web viewer in a stage of its own and ships only their built files", () => {
    const buildStart = all.findIndex((i) => i.keyword === "FROM" && / AS build$/.test(i.args));
    expect(buildStart).toBeGreaterThan(0);
    const build = all.slice(buildStart, all.findIndex((i, index) => index > buildStart && i.keyword === "FROM"));
    for (const command of ["pnpm --filter @mailstop/viewer build", "pnpm --filter @mailstop/cli build"]) {
      expect({ command, run: build.some((i) => i.keyword === "RUN" && i.args.includes(command)) }).toEqual({ command, run: true });
    }
    for (const dist of ["/app/packages/cli/dist", "/app/packages/viewer/dist"]) {
      expect({ dist, copied: runtime.some((i) => i.keyword === "COPY" && i.args === `--from=build ${dist} ${dist}`) }).toEqual({ dist, copied: true });
    }
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
    expect(entrypoint).toContain('exec node --enable-source-maps /app/packages/cli/dist/mailstop.cjs "$@"');
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
