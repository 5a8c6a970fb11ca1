import { randomBytes } from "node:crypto";
import { type TestInfo, test as base } from "@playwright/test";
import { Mailstop, MailstopError, type MailstopOptions } from "@mailstop/sdk";
import { captureRecipient } from "./capture-address.js";
import { MailstopInbox } from "./inbox.js";
import { defaultTimeoutMs } from "./timeout-option.js";
import { waitBudget } from "./wait-budget.js";

/** `test.use({ mailstopOptions: { … } })`, or `use: { mailstopOptions }` in playwright.config. */
export interface MailstopFixtureOptions {
  /** The client's settings; default `MAILSTOP_API_URL` (else http://localhost:8025) and `MAILSTOP_API_KEY`. */
  client?: MailstopOptions;
  /**
   * Set when the application under test sends through the capture relay: each test's inbox is
   * then `pw-<hex>@<captureDomain>`, created as the capture inbox the relay files that
   * recipient under. Unset, the inbox is a receiving address (`<project_key>.<tag>@<domain>`).
   */
  captureDomain?: string;
  /** The first segment of each inbox's tag (receiving addresses); default `playwright`. */
  tagPrefix?: string;
  /** Default longest wait of `waitFor…` in milliseconds; default 30000, never past the test's timeout (the SDK's and the fixture's one name, the CLI's `--timeout`). */
  timeoutMs?: number;
  /** @deprecated Use `timeoutMs` (a deprecation warning is printed once). */
  waitTimeoutMs?: number;
}

export interface MailstopTestFixtures {
  /** A fresh inbox for this test, deleted after it (its messages are attached to the report when the test fails). */
  inbox: MailstopInbox;
}

export interface MailstopWorkerFixtures {
  mailstopOptions: MailstopFixtureOptions;
  /** The SDK client the fixture uses, for anything beyond the inbox (`mailstop.messages.get`, …). */
  mailstop: Mailstop;
}

/** Playwright's longest label value is mailstop's (256 characters). */
const LABEL_MAX = 256;

/**
 * Playwright Test with an `inbox` fixture: `test("signs up", async ({ page, inbox }) => { …
 * await inbox.waitForLink("verify") })`.
 */
export const test = base.extend<MailstopTestFixtures, MailstopWorkerFixtures>({
  mailstopOptions: [{}, { option: true, scope: "worker" }],

  mailstop: [async ({ mailstopOptions }, use) => use(new Mailstop(mailstopOptions.client)), { scope: "worker" }],

  inbox: async ({ mailstop, mailstopOptions }, use, testInfo) => {
    const started = Date.now();
    const unique = randomBytes(8).toString("hex");
    const capture = mailstopOptions.captureDomain === undefined ? undefined : captureRecipient(mailstopOptions.captureDomain, unique);
    const created = await mailstop.inboxes.create({
      tag: capture?.tag ?? `${mailstopOptions.tagPrefix ?? "playwright"}.${unique}`,
      // Who made it, for a person looking at the inbox list.
      labels: { source: "playwright", test: testInfo.titlePath.join(" › ").slice(0, LABEL_MAX) },
    });
    const inbox = new MailstopInbox(created, capture?.address ?? created.address, {
      client: mailstop,
      budget: (requested) => waitBudget(requested ?? defaultTimeoutMs(mailstopOptions), testInfo.timeout, Date.now() - started),
      step: (title, body) => base.step(title, body, { box: true }),
    });
    try {
      await use(inbox);
      if (testInfo.status !== testInfo.expectedStatus) await attachMessages(testInfo, inbox);
    } finally {
      await deleteUnlessGone(mailstop, created.id);
    }
  },
});

export { expect } from "@playwright/test";

/** What arrived, in the failed test's report: usually why the wait found nothing. */
async function attachMessages(testInfo: TestInfo, inbox: MailstopInbox): Promise<void> {
  const messages = await inbox.messages().catch(() => []);
  const summary = {
    inbox: { id: inbox.id, address: inbox.address },
    messages: messages.map(({ id, received_at, from, to, subject, codes, links }) => ({ id, received_at, from, to, subject, codes, links })),
  };
  await testInfo.attach("mailstop inbox", { body: JSON.stringify(summary, null, 2), contentType: "application/json" });
}

async function deleteUnlessGone(mailstop: Mailstop, id: string): Promise<void> {
  try {
    await mailstop.inboxes.delete(id);
  } catch (error) {
    // The test may have deleted it itself.
    if (!(error instanceof MailstopError && error.code === "inbox_not_found")) throw error;
  }
}
