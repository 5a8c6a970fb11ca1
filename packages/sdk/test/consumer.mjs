// A plain Node ESM consumer of the built package (no TypeScript loader): it imports
// `@mailstop/sdk` by name, configured by MAILSTOP_API_URL and MAILSTOP_API_KEY only, creates an
// inbox, prints its address (and a capture tag, the rule the build compiles in from
// @mailstop/core), waits for the message the test sends and prints its subject.
import { Mailstop, MailstopError, WaitTimeoutError, captureTagOf } from "@mailstop/sdk";
import { createInterface } from "node:readline";

const mailstop = new Mailstop();
const inbox = await mailstop.inboxes.create({ tag: process.argv[2] });
console.log(JSON.stringify({ address: inbox.address, captureTag: captureTagOf("John.Doe+x@Example.com") }));
try {
  await mailstop.inboxes.get("ibx_00000000000000000000000000");
} catch (error) {
  console.log(JSON.stringify({ typed: error instanceof MailstopError, code: error.code }));
}
// Waits until the test says it has sent the message.
for await (const line of createInterface({ input: process.stdin })) if (line === "sent") break;
const message = await mailstop.messages.waitFor(inbox.id, { subject_contains: "esm" }, { timeoutMs: 30000 });
console.log(JSON.stringify({ subject: message.subject, timeoutErrorExported: typeof WaitTimeoutError === "function" }));
