import nodemailer from "nodemailer";
import { expect, test } from "../src/index.js";

// Sends what the application under test would: straight to the receiving edge.
async function send(to: string, subject: string, text: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: Number(process.env.SMTP_PORT), secure: false, tls: { rejectUnauthorized: false } });
  await transport.sendMail({ from: "noreply@acme.example", to, subject, text });
  transport.close();
}

// Each test names its inbox in an annotation; the runner checks each was deleted afterwards.
test.beforeEach(({ inbox }) => {
  test.info().annotations.push({ type: "inbox", description: inbox.id });
});

test("finds the code and the link of mail sent before and after the wait began", async ({ inbox }) => {
  await send(inbox.address, "Your code", "Your verification code is 482913");
  expect(await inbox.waitForCode()).toBe("482913");
  const link = inbox.waitForLink("reset_password");
  await send(inbox.address, "Reset your password", "Reset it here: https://app.example.com/reset-password?token=abc");
  expect(await link).toBe("https://app.example.com/reset-password?token=abc");
  // The newest match: the later message, which has no code, is skipped for a code.
  expect((await inbox.waitForMessage({ subject_contains: "reset" })).subject).toBe("Reset your password");
  expect(await inbox.waitForCode()).toBe("482913");
});

test("without a kind, a link is the first that is not an unsubscribe link", async ({ inbox }) => {
  await send(inbox.address, "News", "Unsubscribe: https://app.example.com/unsubscribe?u=1\nRead more: https://app.example.com/news/42");
  expect(await inbox.waitForLink()).toBe("https://app.example.com/news/42");
});

test("a second test gets an inbox of its own", async ({ inbox }) => {
  expect(inbox.address).toMatch(/\.playwright\.[0-9a-f]{16}@/);
  expect(await inbox.messages()).toEqual([]);
});

test("fails with the server's hint and attaches what arrived [fails on purpose]", async ({ inbox }) => {
  await send(inbox.address, "Welcome aboard", "Nothing to verify here.");
  await inbox.waitForMessage({ subject_contains: "Welcome" });
  await inbox.waitForLink("verify", {}, { timeoutMs: 500 });
});

test("a wait ends before the test's own timeout [fails on purpose]", async ({ inbox }) => {
  test.setTimeout(4_000);
  await inbox.waitForMessage({ subject_contains: "never sent" });
});
