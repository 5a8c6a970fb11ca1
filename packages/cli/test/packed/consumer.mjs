// An ES module program of a project that installed @mailstop/sdk from its tarball: creates an
// inbox (tag from argv), prints its address, and waits for the message the test then sends.
import { Mailstop } from "@mailstop/sdk";

const mailstop = new Mailstop();
const inbox = await mailstop.inboxes.create({ tag: process.argv[2] });
console.log(JSON.stringify({ address: inbox.address }));
const message = await mailstop.messages.waitFor(inbox.id, { subject_contains: "packed" }, { timeoutMs: 30_000 });
console.log(JSON.stringify({ subject: message.subject, from: "import" }));
