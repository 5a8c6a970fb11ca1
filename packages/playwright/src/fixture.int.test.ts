import { resolve } from "node:path";
import { freePort, useTestServer } from "@mailstop/testkit";
import { type PlaywrightRun, runPlaywright } from "./run-playwright";

// `@mailstop/playwright` as its users run it: Playwright's own runner (`playwright test`) against
// a started mailstop. First the fixture's behaviour (test/fixture.spec.ts, no browser), then the
// sign-up example in Debian's Chromium, its mail sent through the receiving edge and through the
// capture relay.
const FIXTURE_TESTS = resolve(__dirname, "../test");
const EXAMPLE = resolve(__dirname, "../../../examples/signup");

const server = useTestServer({ mail: true });

const mailstopEnv = () => ({ MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: server.apiKey });

function explain(run: PlaywrightRun): string {
  return `playwright exited ${run.code}:\n${run.output.slice(-4000)}`;
}

async function expectInboxGone(id: string): Promise<void> {
  const response = await server.request("GET", `/v1/inboxes/${id}`);
  expect(response.status).toBe(404);
}

describe("the inbox fixture", () => {
  let run: PlaywrightRun;
  beforeAll(async () => {
    run = await runPlaywright(FIXTURE_TESTS, { ...mailstopEnv(), SMTP_PORT: String(server.smtpPort) });
  }, 180_000);

  const result = (title: string) => {
    const found = run.results.get(title);
    if (found === undefined) throw new Error(`no result for "${title}": ${explain(run)}`);
    return found;
  };

  it("waits for a code and a link, newest match first, whether the mail came before or after the wait began", () => {
    const { status, errors } = result("finds the code and the link of mail sent before and after the wait began");
    expect({ status, errors }).toEqual({ status: "passed", errors: [] });
  });

  it("takes the first link that is not an unsubscribe link when no kind is asked for", () => {
    const { status, errors } = result("without a kind, a link is the first that is not an unsubscribe link");
    expect({ status, errors }).toEqual({ status: "passed", errors: [] });
  });

  it("gives every test an inbox of its own and deletes it after the test, passed or failed", async () => {
    const ids = [...run.results.values()].map((each) => each.annotations?.find((annotation) => annotation.type === "inbox")?.description);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(result("a second test gets an inbox of its own").status).toBe("passed");
    for (const id of ids) await expectInboxGone(id as string);
  });

  it("fails a wait with the server's hint and attaches what arrived to the failed test's report", () => {
    const failed = result("fails with the server's hint and attaches what arrived [fails on purpose]");
    expect(failed.status).toBe("failed");
    expect(failed.errors[0]?.message).toMatch(/WaitTimeoutError: no matching message within \d+ ms/);
    const attachment = failed.attachments.find((each) => each.name === "mailstop inbox");
    expect(attachment?.contentType).toBe("application/json");
    const summary = JSON.parse(Buffer.from(attachment?.body ?? "", "base64").toString("utf8"));
    expect(summary.messages).toEqual([expect.objectContaining({ subject: "Welcome aboard", codes: [], links: [] })]);
    // A passing test attaches nothing.
    expect(result("a second test gets an inbox of its own").attachments).toEqual([]);
  });

  it("ends a wait a second before the test's timeout, so the failure is the hint and not Playwright's timeout", () => {
    const failed = result("a wait ends before the test's own timeout [fails on purpose]");
    expect(failed.status).toBe("failed");
    expect(failed.errors[0]?.message).toMatch(/WaitTimeoutError: no matching message within \d+ ms: Nothing arrived/);
  });
});

describe("the sign-up example in Chromium", () => {
  async function runExample(env: Record<string, string>): Promise<PlaywrightRun> {
    const run = await runPlaywright(EXAMPLE, { ...mailstopEnv(), APP_PORT: String(await freePort()), ...env });
    if (run.code !== 0 || run.report?.stats.expected !== 2) throw new Error(explain(run));
    return run;
  }

  it("signs up, waits for the email through the fixture, opens the link or types the code, and sees the account verified (receiving edge)", async () => {
    const run = await runExample({ SMTP_URL: `smtp://127.0.0.1:${server.smtpPort}` });
    expect([...run.results.values()].map((each) => each.status)).toEqual(["passed", "passed"]);
    const inboxes = await server.request("GET", "/v1/inboxes?tag_prefix=playwright");
    expect(inboxes.json).toMatchObject({ data: [] });
  }, 180_000);

  it("does the same with the app sending through the capture relay", async () => {
    const { host, port, username, password } = server.project.smtp;
    const before = await capturedCount();
    const run = await runExample({
      SMTP_URL: `smtp://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${host}:${port}`,
      CAPTURE_DOMAIN: "signup.example.test",
    });
    expect([...run.results.values()].map((each) => each.status)).toEqual(["passed", "passed"]);
    // Both emails went through the relay (metered as captured), and their inboxes are gone.
    expect((await capturedCount()) - before).toBe(2);
    const inboxes = await server.request("GET", "/v1/inboxes?tag_prefix=capture.signup.example.test");
    expect(inboxes.json).toMatchObject({ data: [] });
  }, 180_000);

  async function capturedCount(): Promise<number> {
    const usage = await server.request("GET", "/v1/usage");
    const metrics = (usage.json as { metrics: Array<{ metric: string; used: number }> }).metrics;
    return metrics.find((each) => each.metric === "message.captured")?.used ?? 0;
  }
});
