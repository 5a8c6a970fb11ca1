import { execFile, spawn } from "node:child_process";
import { resolve } from "node:path";
import { Mailstop, captureTagOf } from "@mailstop/sdk/source";
import { defaultSmtpTransport, uniqueTag, useTestServer } from "@mailstop/testkit";

// `mailstop wait` as a shell sees it: the binary spawned against a real mailstop (both worlds),
// configured by MAILSTOP_API_URL and MAILSTOP_API_KEY, its stdout, stderr and exit status.
const BIN = resolve(__dirname, "../bin/mailstop.cjs");

const server = useTestServer({ mail: true });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of this process without any mailstop variable, plus the server's URL and key. */
function env(): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MAILSTOP_")));
  return { ...clean, MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: server.apiKey };
}

/** Runs `command` in sh with `$MAILSTOP` set to the binary; never rejects. */
function sh(command: string): { done: Promise<Run> } {
  const child = spawn("sh", ["-c", command], { env: { ...env(), MAILSTOP: `${process.execPath} ${BIN}` } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { done: new Promise((done) => child.once("close", (code) => done({ code, stdout, stderr }))) };
}

/** `mailstop wait …args`; never rejects. */
function wait(args: string[]): Promise<Run> {
  return mailstop(["wait", ...args]);
}

/** `mailstop …args` (in `environment`, default the server's); never rejects. */
function mailstop(args: string[], environment: NodeJS.ProcessEnv = env()): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env: environment, timeout: 60_000, encoding: "utf8" }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr });
    });
  });
}

describe("mailstop wait", () => {
  it("blocks until the message arrives; code=$(mailstop wait … --print code) captures its code (exit 0)", async () => {
    const inbox = await server.createInbox();
    const subject = `Your code ${uniqueTag("c")}`;
    // An earlier message without a code: --print code waits for one that has a code.
    await server.deliver(inbox, { subject: `${subject} (no code)`, text: "Welcome aboard" });
    const run = sh(`code=$($MAILSTOP wait --inbox ${inbox.address} --subject-contains "${subject}" --timeout 30s --print code) && echo "got $code"`);
    await server.deliver(inbox, { subject, text: "Your verification code is 482913" });
    expect(await run.done).toEqual({ code: 0, stdout: "got 482913\n", stderr: "" });
  });

  it("prints a link of a kind, a summary, or the message as JSON", async () => {
    const inbox = await server.createInbox();
    const subject = `Confirm ${uniqueTag("l")}`;
    await server.deliver(inbox, { subject, html: '<p><a href="https://app.example.com/verify?token=abc123">Verify your email</a></p>', text: "Verify: https://app.example.com/verify?token=abc123" });
    const link = await wait(["--inbox", inbox.id, "--subject-contains", subject, "--print", "link:verify"]);
    expect(link).toEqual({ code: 0, stdout: "https://app.example.com/verify?token=abc123\n", stderr: "" });
    const summary = await wait(["--inbox", inbox.address, "--from-contains", "acme.example"]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(new RegExp(`^msg_\\S+  \\S+  noreply@acme\\.example  ${subject}\\n`));
    expect(summary.stdout).toContain("link (verify): https://app.example.com/verify?token=abc123");
    const json = await wait(["--inbox", inbox.id, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ subject, inbox_id: inbox.id });
  });

  it("exits 2 on a timeout with the server's hint on stderr (and the report on stdout with --json)", async () => {
    const inbox = await server.createInbox();
    const timeout = await wait(["--inbox", inbox.address, "--subject-contains", "never sent", "--timeout", "300ms", "--print", "code"]);
    expect(timeout.code).toBe(2);
    expect(timeout.stdout).toBe("");
    expect(timeout.stderr).toMatch(/^mailstop: no matching message within \d+ ms \(0 other arrivals\): \S/);
    const json = await wait(["--inbox", inbox.id, "--subject-contains", "never sent", "--timeout", "0.3s", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "timeout", hint: expect.any(String), non_matching_arrivals: 0 });
  });

  it("exits 1 on an error, naming its code and request id, and on a usage error", async () => {
    const missing = await wait(["--inbox", "ibx_00000000000000000000000000", "--timeout", "1s"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^mailstop: inbox_not_found: .+ \(request req_\w+\)\n$/);
    const json = await wait(["--inbox", "ibx_00000000000000000000000000", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "inbox_not_found", retryable: false, request_id: expect.stringMatching(/^req_/) } });
    const tooLong = await wait(["--inbox", "ibx_00000000000000000000000000", "--timeout", "10m"]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain("invalid_request");
    const usage = await wait(["--inbox", "x", "--print", "subject"]);
    expect(usage).toMatchObject({ code: 1, stdout: "" });
    expect(usage.stderr).toContain("--print takes code, link, link:<kind> or json");
  });
});

describe("a newcomer's path (issue 31)", () => {
  it("names the capture inbox of a recipient (inboxes capture-address) and waits on it (wait --capture)", async () => {
    const recipient = `NewUser.${uniqueTag("c").replace(/\./g, "-")}@Example.com`;
    const printed = await mailstop(["inboxes", "capture-address", recipient]);
    expect(printed.code).toBe(0);
    const address = printed.stdout.trim();
    // The inbox the relay fills, made ahead (as the fixture does) so the wait can begin first.
    const sdk = new Mailstop({ baseUrl: server.url, apiKey: server.apiKey });
    expect((await sdk.inboxes.create({ tag: captureTagOf(recipient)! })).address).toBe(address);
    const subject = `captured ${uniqueTag("s")}`;
    const run = wait(["--capture", recipient, "--subject-contains", subject, "--timeout", "30s", "--print", "json"]);
    await defaultSmtpTransport(server.smtp!.capture, { user: server.project.smtp.username, pass: server.project.smtp.password }).sendMail({ from: "app@example.com", to: recipient, subject, text: "x" });
    const waited = await run;
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ subject, to: [{ address: expect.stringMatching(/^newuser\./i) }] });
  });

  it("without a key, names MAILSTOP_API_KEY and --api-key and calls nothing", async () => {
    const { MAILSTOP_API_KEY: _key, ...keyless } = env();
    for (const args of [["inboxes", "list"], ["wait", "--inbox", "ibx_00000000000000000000000000", "--timeout", "1s"]]) {
      const run = await mailstop(args, keyless);
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toContain("MAILSTOP_API_KEY");
      expect(run.stderr).toContain("--api-key");
      expect(run.stderr).toContain("mailstop keys create --project local");
    }
  });

  it("refuses a wait naming neither --inbox nor --capture, or both", async () => {
    for (const args of [["--timeout", "1s"], ["--inbox", "ibx_00000000000000000000000000", "--capture", "a@b.example"]]) {
      const run = await wait(args);
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toContain("--inbox <id|address>, or --capture <recipient>");
    }
  });
});
