/**
 * `pnpm compose:check`: the fleet as a user runs it (`docker compose up` of the repository's
 * docker-compose.yml, unchanged), checked end to end through its published ports only, on a
 * real Docker engine (started here when none answers). Where Docker Hub cannot be reached, the
 * upstream images are stand-ins built from Debian (infra/docker/stand-ins), tagged with their
 * names in this engine for the run and untagged after it. Prints one table (step, result,
 * seconds) with time to healthy, image size and each container's memory; exits 1 on any failure.
 * docs/operator.md "Checking the compose fleet" shows a run.
 */
import { randomBytes } from "node:crypto";
import { smtpTransport } from "@mailstop/testkit/src/smtp";
import { ComposeProject } from "../src/docker/compose-project";
import { type Engine, docker, ensureEngine } from "../src/docker/engine";
import { appLayerBytes, buildMailstopImage, extraCaCertificates, megabytes } from "../src/docker/mailstop-image";
import { ensureUpstreamImages, upstreamImages } from "../src/docker/stand-ins";

const EDGE = "http://127.0.0.1:8025";
const MX_PORT = 25;
const CAPTURE_PORT = 587;
const IMAGE = "mailstop:local";
const ONE_SHOTS = ["migrate", "bucket", "bootstrap"];
/** Messages sent while a parser container is killed. */
const LOAD_MESSAGES = 60;

interface Row {
  step: string;
  ok: boolean;
  seconds: number;
  note: string;
}
const rows: Row[] = [];
const facts: string[] = [];
const log = (line: string) => console.log(`[compose:check] ${line}`);

/** Runs one step, recording its result; a failed step fails the run but the cleanup still runs. */
async function step(name: string, body: () => Promise<string | void>, options: { critical?: boolean } = {}): Promise<boolean> {
  const started = Date.now();
  log(`${name}…`);
  try {
    const note = (await body()) ?? "";
    rows.push({ step: name, ok: true, seconds: (Date.now() - started) / 1000, note });
    return true;
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    rows.push({ step: name, ok: false, seconds: (Date.now() - started) / 1000, note: note.split("\n")[0]!.slice(0, 160) });
    log(`${name} FAILED: ${note.slice(0, 4000)}`);
    if (options.critical) throw new Error(`stopping: ${name} failed`);
    return false;
  }
}

async function eventually<T>(what: string, deadlineMs: number, probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== null && value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${deadlineMs / 1000} s${last ? ` (${String(last)})` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The API through the nginx edge, as a client with the bootstrap key. */
async function api<T = any>(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`${EDGE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : null) as T };
}

async function waitFor(key: string, inbox: string, subject: string, timeoutMs = 30_000): Promise<any> {
  let target = inbox;
  return eventually(`a message "${subject}" in ${inbox}`, timeoutMs + 30_000, async () => {
    const { status, json } = await api(key, "POST", "/v1/messages/wait", { inbox: target, match: { subject_contains: subject }, timeout_ms: timeoutMs });
    if (status === 404) {
      // A recipient of the capture relay: the answer names the capture inbox its mail is filed in (docs/api.md).
      target = json?.error?.details?.capture_inbox ?? target;
      return null;
    }
    if (status !== 200) throw new Error(`wait answered ${status}: ${JSON.stringify(json)}`);
    return json.status === "matched" ? json.message : null;
  });
}

function printTable(): void {
  const width = Math.max(...rows.map((row) => row.step.length), 4);
  console.log("");
  console.log(`| ${"step".padEnd(width)} | result | seconds | note`);
  console.log(`| ${"-".repeat(width)} | ------ | ------- | ----`);
  for (const row of rows) console.log(`| ${row.step.padEnd(width)} | ${row.ok ? "ok    " : "FAILED"} | ${row.seconds.toFixed(1).padStart(7)} | ${row.note}`);
  console.log("");
  for (const fact of facts) console.log(fact);
}

async function main(): Promise<number> {
  const started = Date.now();
  let engine: Engine | undefined;
  let project: ComposeProject | undefined;
  let standIns: { image: string; standIn: string }[] = [];
  try {
    await step(
      "Docker engine",
      async () => {
        engine = await ensureEngine();
        return engine.how;
      },
      { critical: true },
    );
    await step(
      "upstream images",
      async () => {
        standIns = await ensureUpstreamImages((line) => log(line));
        if (standIns.length === 0) return "all pulled or present";
        for (const { image, standIn } of standIns) facts.push(`stand-in: ${image} is ${standIn} (this engine only; untagged at the end)`);
        return `stand-ins for ${standIns.map((s) => s.image).join(", ")}`;
      },
      { critical: true },
    );
    const ca = extraCaCertificates();
    project = new ComposeProject(`mailstop-check-${randomBytes(3).toString("hex")}`, { ...process.env, MAILSTOP_BUILD_EXTRA_CA_CERTS: ca });
    const fleet = project;
    await step(
      "docker build",
      async () => {
        // The builder `up --build` uses, so that its build is this one's cache.
        const { seconds } = await buildMailstopImage({ tag: IMAGE, builder: fleet.builder, log: (line) => /^(Step|#\d+ \[)/.test(line) && log(`  ${line}`) });
        const node = upstreamImages().node;
        const size = docker(["image", "inspect", "--format", "{{.Size}}", IMAGE]).stdout.trim();
        facts.push(`image ${IMAGE}: ${megabytes(Number(size))}, of which ${megabytes(appLayerBytes(IMAGE, node))} above ${node} (built with ${fleet.builder} in ${seconds.toFixed(0)} s)`);
        return `${fleet.builder} builder, ${megabytes(appLayerBytes(IMAGE, node))} above the Node base`;
      },
      { critical: true },
    );
    let upAt = 0;
    await step(
      "compose up -d --build",
      async () => {
        upAt = Date.now();
        const up = await fleet.composeStreaming(["up", "-d", "--build"], (line) => /^(Step \d+|#\d+ \[|Creating|Starting|Building|Successfully|ERROR)/.test(line.trim()) && log(`  ${line.trim()}`));
        if (!up.ok) throw new Error(`${fleet.client} up failed: ${up.stderr.slice(-3000)}`);
        return `${fleet.client} -p ${fleet.name}`;
      },
      { critical: true },
    );
    await step(
      "every service healthy",
      async () => {
        const containers = await fleet.waitHealthy(ONE_SHOTS, 300_000);
        const seconds = (Date.now() - upAt) / 1000;
        facts.push(`time to healthy: ${seconds.toFixed(1)} s from \`up\` (${containers.length} containers)`);
        return `${containers.filter((c) => !ONE_SHOTS.includes(c.service)).length} services, ${seconds.toFixed(1)} s after up`;
      },
      { critical: true },
    );

    let key = "";
    let smtp = { username: "", password: "" };
    await step(
      "credentials (compose logs bootstrap)",
      async () => {
        const text = fleet.logs("bootstrap");
        const json = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as { api_key: string; smtp: { username: string; password: string; port: number } };
        key = json.api_key;
        smtp = json.smtp;
        if (!key || json.smtp.port !== CAPTURE_PORT) throw new Error(`unexpected bootstrap output: ${text}`);
        return `api key and SMTP login (port ${json.smtp.port})`;
      },
      { critical: true },
    );

    let inbox = { id: "", address: "" };
    await step(
      "create an inbox (edge :8025)",
      async () => {
        const { status, json } = await api(key, "POST", "/v1/inboxes", { tag: `check-${randomBytes(3).toString("hex")}` });
        if (status !== 201 && status !== 200) throw new Error(`POST /v1/inboxes answered ${status}: ${JSON.stringify(json)}`);
        inbox = json;
        return inbox.address;
      },
      { critical: true },
    );

    // The stream is opened before the mail is sent: its `message` frame must arrive while it stays open.
    const stream = new AbortController();
    const frames: { event: string; at: number }[] = [];
    let streamStatus = 0;
    const streamOpened = Date.now();
    const reading = (async () => {
      const response = await fetch(`${EDGE}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }, signal: stream.signal });
      streamStatus = response.status;
      const decoder = new TextDecoder();
      for await (const chunk of response.body!) {
        for (const match of decoder.decode(chunk as Uint8Array, { stream: true }).matchAll(/^event: (\w+)$/gm)) frames.push({ event: match[1]!, at: Date.now() - streamOpened });
      }
    })().catch(() => undefined);

    const attachment = randomBytes(48 * 1024);
    await step("send to :25 (MX), with an attachment", async () => {
      const sent = await smtpTransport(MX_PORT).sendMail({
        from: "sender@example.com",
        to: inbox.address,
        subject: "compose-check mx",
        text: "through the receiving edge",
        attachments: [{ filename: "check.bin", content: attachment, contentType: "application/octet-stream" }],
      });
      return sent.response;
    });
    const captureTo = `someone-${randomBytes(3).toString("hex")}@example.com`;
    await step("send to :587 (capture relay, AUTH)", async () => {
      const sent = await smtpTransport(CAPTURE_PORT, { auth: { user: smtp.username, pass: smtp.password } }).sendMail({ from: "app@example.com", to: captureTo, subject: "compose-check capture", text: "through the capture relay" });
      return sent.response;
    });

    let message: any = null;
    await step("wait through the edge (MX message)", async () => {
      message = await waitFor(key, inbox.id, "compose-check mx");
      return `${message.id}, ${message.attachments?.length ?? 0} attachment(s)`;
    });
    await step("wait through the edge (captured message)", async () => {
      const captured = await waitFor(key, captureTo, "compose-check capture");
      return `${captured.id} in ${captured.inbox}`;
    });
    await step("event stream through the edge", async () => {
      const frame = await eventually("the stream's message frame", 30_000, async () => frames.find((f) => f.event === "message"));
      const open = frames.find((f) => f.event === "open");
      if (streamStatus !== 200 || !open) throw new Error(`stream answered ${streamStatus}, frames ${JSON.stringify(frames)}`);
      return `open after ${open.at} ms, message after ${frame.at} ms, the stream still open`;
    });
    stream.abort();
    await reading;

    await step("/ui/ loads", async () => {
      const page = await fetch(`${EDGE}/ui/`);
      const html = await page.text();
      if (page.status !== 200 || !/<html/i.test(html)) throw new Error(`/ui/ answered ${page.status}`);
      const asset = /(?:src|href)="([^"]+\.(?:js|css))"/.exec(html)?.[1];
      if (asset === undefined) throw new Error("/ui/ names no script or stylesheet");
      const loaded = await fetch(new URL(asset, `${EDGE}/ui/`));
      if (loaded.status !== 200) throw new Error(`${asset} answered ${loaded.status}`);
      return `page and ${asset}`;
    });
    await step("a body over the edge's limit: the error envelope", async () => {
      const response = await fetch(`${EDGE}/v1/inboxes`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: "x".repeat(9 * 1024 * 1024) });
      const body = (await response.json().catch(() => null)) as { error?: { code?: string; details?: { source?: string } } } | null;
      if (response.status !== 413 || body?.error?.code !== "payload_too_large" || body.error.details?.source !== "edge") throw new Error(`answered ${response.status}: ${JSON.stringify(body)}`);
      return `413 payload_too_large, ${response.headers.get("x-request-id")}`;
    });
    await step("download the attachment from its URL", async () => {
      const url = message?.attachments?.[0]?.url as string | undefined;
      if (!url) throw new Error(`the message lists no attachment URL: ${JSON.stringify(message?.attachments)}`);
      // The API's URL (with the key), which answers with a redirect to the object store's presigned URL (without it).
      const direct = await fetch(url, { redirect: "manual", headers: { authorization: `Bearer ${key}` } });
      const location = direct.status >= 300 && direct.status < 400 ? direct.headers.get("location") : null;
      const response = location ? await fetch(location) : direct;
      const bytes = Buffer.from(await response.arrayBuffer());
      if (response.status !== 200 || !bytes.equals(attachment)) throw new Error(`${location ?? url} answered ${response.status} with ${bytes.length} bytes`);
      return `${bytes.length} bytes from ${new URL(location ?? url).host}`;
    });

    await step(`kill a parser under load (${LOAD_MESSAGES} messages)`, async () => {
      const parser = fleet.containers().find((c) => c.service === "parser" && c.state === "running");
      if (!parser) throw new Error("no parser container runs");
      const transport = smtpTransport(MX_PORT, { pool: true });
      const subjects = Array.from({ length: LOAD_MESSAGES }, (_, i) => `load-${i}`);
      const sending = Promise.all(subjects.map((subject) => transport.sendMail({ from: "load@example.com", to: inbox.address, subject, text: subject })));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const killed = docker(["kill", parser.id]);
      if (!killed.ok) throw new Error(`docker kill: ${killed.stderr}`);
      await sending;
      transport.close();
      const missing = await eventually("every load message readable", 120_000, async () => {
        const { json } = await api(key, "GET", `/v1/messages?inbox=${inbox.id}&subject_contains=load-&limit=100`);
        const seen = new Set((json.data as { subject: string }[]).map((m) => m.subject));
        const left = subjects.filter((s) => !seen.has(s));
        return left.length === 0 ? left : null;
      });
      return `${parser.name} killed; ${LOAD_MESSAGES - missing.length}/${LOAD_MESSAGES} answered 250 and readable`;
    });

    await step("restart the stack: the data is kept", async () => {
      // As a user restarts it: every container stopped, then `up -d` again (the one-shots run again, in order).
      const stopped = fleet.compose(["stop"]);
      if (!stopped.ok) throw new Error(`stop: ${stopped.stderr.slice(-2000)}`);
      const restarted = fleet.compose(["up", "-d"]);
      if (!restarted.ok) throw new Error(`up -d: ${restarted.stderr.slice(-2000)}`);
      await fleet.waitHealthy(ONE_SHOTS, 300_000);
      const again = await eventually("the message after the restart", 60_000, async () => {
        const { status, json } = await api(key, "GET", `/v1/messages/${message.id}`);
        return status === 200 ? json : null;
      });
      if (again.attachments?.length !== 1) throw new Error(`after the restart: ${JSON.stringify(again)}`);
      return `${message.id} and its attachment still there`;
    });

    for (const { name, memory } of fleet.memory()) facts.push(`memory: ${name} ${memory}`);
  } catch (error) {
    log(String(error instanceof Error ? error.message : error));
  } finally {
    if (project) {
      const fleet = project;
      await step("compose down -v", async () => {
        const down = fleet.compose(["down", "-v", "--remove-orphans"]);
        if (!down.ok) throw new Error(down.stderr.slice(-2000));
        if (fleet.containers().length > 0) throw new Error("containers left");
      });
    }
    // The stand-ins answer to the upstream names only for this run.
    for (const { image } of standIns) docker(["rmi", image]);
    if (engine?.startedHere) {
      await engine.stop();
      facts.push("dockerd: started by this check and stopped again");
    }
  }
  facts.push(`total: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  printTable();
  const failed = rows.filter((row) => !row.ok);
  console.log(failed.length === 0 ? `compose-check: ${rows.length} passed, 0 failed` : `compose-check: ${rows.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code));
