import { existsSync, readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { REPO_ROOT } from "../generated-files";
import { docker, imageSize, run, runStreaming } from "./engine";

export const DOCKERFILE = "infra/docker/Dockerfile";

/**
 * The certificate authorities this machine trusts beyond Node's own (the TLS proxy's in front
 * of the registries): the PEM blocks of NODE_EXTRA_CA_CERTS, else of the system bundle, that
 * are not among Node's built-in roots. Empty where there are none.
 */
export function extraCaCertificates(): string {
  const bundle = [process.env.NODE_EXTRA_CA_CERTS, "/etc/ssl/certs/ca-certificates.crt"].find((path) => path && existsSync(path));
  if (!bundle) return "";
  const builtIn = new Set(rootCertificates.map((pem) => pem.replace(/\s+/g, "")));
  const blocks = readFileSync(bundle, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.filter((pem) => !builtIn.has(pem.replace(/\s+/g, ""))).join("\n");
}

export type Builder = "buildkit" | "classic";

/**
 * The Docker client that builds with `builder`, or null: the classic builder is any client's
 * (DOCKER_BUILDKIT=0); BuildKit needs a client with buildx, or one that still carries BuildKit
 * itself (before 23.0, as Debian's docker.io 20.10 in /usr/bin). A machine may have both (a
 * newer client without buildx first on PATH).
 */
export function clientFor(builder: Builder): string | null {
  if (builder === "classic") return "docker";
  if (docker(["buildx", "version"], { timeoutMs: 20_000 }).ok) return "docker";
  for (const client of ["docker", "/usr/bin/docker"]) {
    const version = run(client, ["version", "--format", "{{.Client.Version}}"], { timeoutMs: 20_000 }).stdout.trim();
    if (/^\d+\./.test(version) && Number(version.split(".")[0]) < 23) return client;
  }
  return null;
}

/**
 * Builds infra/docker/Dockerfile from the repository root as `tag`, as a user does, with the
 * machine's extra certificate authorities for the registry (build stage only) and `NODE_IMAGE`
 * when given. Resolves with the build's duration.
 */
export async function buildMailstopImage(options: { tag: string; builder: Builder; nodeImage?: string; log?: (line: string) => void }): Promise<{ seconds: number }> {
  const started = Date.now();
  const args = ["build", "-f", DOCKERFILE, "-t", options.tag];
  const ca = extraCaCertificates();
  if (ca !== "") args.push("--build-arg", `BUILD_EXTRA_CA_CERTS=${ca}`);
  if (options.nodeImage) args.push("--build-arg", `NODE_IMAGE=${options.nodeImage}`);
  if (options.builder === "buildkit") args.push("--progress=plain");
  args.push(".");
  const client = clientFor(options.builder);
  if (client === null) throw new Error(`no Docker client here builds with ${options.builder}`);
  const result = await runStreaming(client, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, DOCKER_BUILDKIT: options.builder === "buildkit" ? "1" : "0" },
    onLine: (line) => options.log?.(line),
  });
  if (!result.ok) throw new Error(`docker build (${options.builder}) failed: ${(result.stderr || result.stdout).slice(-3000)}`);
  return { seconds: (Date.now() - started) / 1000 };
}

/** Bytes the image adds above its Node base: what the image ships of mailstop. */
export function appLayerBytes(image: string, nodeImage: string): number {
  return imageSize(image) - imageSize(nodeImage);
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
