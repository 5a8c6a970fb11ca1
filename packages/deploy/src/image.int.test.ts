import { randomBytes } from "node:crypto";
import { createConnection } from "node:net";
import { docker, engineAnswers } from "./docker/engine";
import { appLayerBytes, buildMailstopImage, clientFor } from "./docker/mailstop-image";
import { ensureUpstreamImages, upstreamImages } from "./docker/stand-ins";
import { findExecutable } from "./fleet";

// The image on its own, as a Mailpit user runs it:
//   docker run -p 8025:8025 -p 2525:2525 -p 2587:2587 -v mailstop:/data mailstop
// built from infra/docker/Dockerfile on this machine's Docker engine (its Node base a stand-in
// from Debian where Docker Hub cannot be reached). Without an engine that answers it says so
// and skips: `pnpm compose:check` starts one (README "The fleet: docker compose up").

/** Why this machine cannot run the test, or null. */
function missingEngine(): string | null {
  if (findExecutable("docker") === null) return "docker is not installed (apt-get install -y docker.io)";
  if (!engineAnswers()) return "no Docker engine answers (start dockerd, or run `pnpm compose:check`, which does)";
  return null;
}

const reason = missingEngine();
const describeWithEngine = reason === null ? describe : (name: string, body: () => void) => describe.skip(`${name} [${reason}]`, body);

/** Host ports of this run: the one-liner's own ports are the container's; the host's are free ones. */
const HTTP = 18025 + Math.floor(Math.random() * 1000);
const SMTP = HTTP + 1000;
const CAPTURE = HTTP + 2000;

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | null | undefined> | T | null | undefined): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${deadlineMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The first line an SMTP listener on the host port says. */
function smtpGreeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("data", (data) => {
      socket.end("QUIT\r\n");
      resolve(data.toString("utf8"));
    });
    socket.once("error", reject);
    socket.setTimeout(5000, () => socket.destroy(new Error("no greeting")));
  });
}

describeWithEngine("the image on its own (docker run)", () => {
  const tag = `mailstop-test:${randomBytes(4).toString("hex")}`;
  const volume = `mailstop-test-${randomBytes(4).toString("hex")}`;
  const containers: string[] = [];
  let standIns: { image: string }[] = [];
  const node = upstreamImages().node;

  beforeAll(async () => {
    standIns = await ensureUpstreamImages(() => undefined, "node");
    // The classic builder: every client has it (BuildKit is the compose check's, when there).
    await buildMailstopImage({ tag, builder: clientFor("buildkit") !== null ? "buildkit" : "classic" });
  }, 900_000);

  afterAll(() => {
    for (const container of containers) docker(["rm", "-f", container]);
    docker(["volume", "rm", "-f", volume]);
    docker(["rmi", tag]);
    for (const { image } of standIns) docker(["rmi", image]);
  });

  const runDetached = (name: string, flags: string[]) => {
    containers.push(name);
    const started = docker(["run", "-d", "--name", name, ...flags, "-p", `127.0.0.1:${HTTP}:8025`, "-p", `127.0.0.1:${SMTP}:2525`, "-p", `127.0.0.1:${CAPTURE}:2587`, "-v", `${volume}:/data`, tag]);
    expect({ status: started.status, stderr: started.stderr }).toEqual({ status: 0, stderr: "" });
  };
  const logs = (name: string) => {
    const result = docker(["logs", name]);
    return result.stdout + result.stderr;
  };

  it("adds at most 60 MB above its Node base", () => {
    expect(appLayerBytes(tag, node)).toBeLessThanOrEqual(60e6);
  });

  it("keeps no build argument in its history or configuration (the registry's certificate authorities were one)", () => {
    const history = docker(["history", "--no-trunc", "--format", "{{.CreatedBy}}", tag]).stdout;
    const config = docker(["image", "inspect", "--format", "{{json .Config}}", tag]).stdout;
    for (const text of [history, config]) {
      expect(text).not.toContain("BEGIN CERTIFICATE");
      expect(text).not.toContain("BUILD_EXTRA_CA_CERTS");
    }
  });

  it("runs the monolith from the one-liner: serves HTTP and SMTP, prints its credentials, answers its HEALTHCHECK, as a non-root user", async () => {
    const name = `${volume}-run`;
    runDetached(name, []);
    await until("/health", 60_000, async () => ((await fetch(`http://127.0.0.1:${HTTP}/health`, { signal: AbortSignal.timeout(5000) })).status === 200 ? true : null));
    expect(await smtpGreeting(SMTP)).toMatch(/^220 /);
    expect(await smtpGreeting(CAPTURE)).toMatch(/^220 /);
    const printed = await until("the credentials in the log", 30_000, () => (/API key \(generated now\): (\S+)/.exec(logs(name)) ? logs(name) : null));
    const key = /API key \(generated now\): (\S+)/.exec(printed)![1]!;
    expect(printed).toMatch(/SMTP capture relay: .* user local {2}password \S+/);
    const check = await fetch(`http://127.0.0.1:${HTTP}/v1/auth/check`, { headers: { authorization: `Bearer ${key}` } });
    expect(check.status).toBe(200);
    expect(docker(["exec", name, "id", "-u"]).stdout.trim()).toBe("1000");
    // The Dockerfile's HEALTHCHECK (every 10 s after the start period) reports healthy.
    await until("HEALTHCHECK healthy", 90_000, () => (docker(["inspect", "--format", "{{.State.Health.Status}}", name]).stdout.trim() === "healthy" ? true : null));
  }, 300_000);

  it("drains on `docker stop` within its grace (exit 0, not killed)", () => {
    const name = `${volume}-run`;
    const started = Date.now();
    const stopped = docker(["stop", "--time", "10", name]);
    expect(stopped.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(docker(["inspect", "--format", "{{.State.ExitCode}} {{.State.OOMKilled}}", name]).stdout.trim()).toBe("0 false");
    docker(["rm", name]);
  }, 60_000);

  it("runs with a read-only root filesystem (the data volume and a tmpfs), keeping the data of the first run", async () => {
    const name = `${volume}-ro`;
    runDetached(name, ["--read-only", "--tmpfs", "/tmp"]);
    await until("/ready", 60_000, async () => ((await fetch(`http://127.0.0.1:${HTTP}/ready`, { signal: AbortSignal.timeout(5000) })).status === 200 ? true : null));
    // The volume kept the project: a second start creates no new credentials.
    const output = logs(name);
    expect(output).not.toMatch(/API key \(generated now\)/);
    expect(output).not.toMatch(/read-only file system|EROFS/i);
    expect(await smtpGreeting(SMTP)).toMatch(/^220 /);
  }, 120_000);
});
