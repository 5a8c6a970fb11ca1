// The same as consumer.mjs, from CommonJS (`npm init -y` makes a CommonJS project): require.
const { Mailstop } = require("@mailstop/sdk");

(async () => {
  const mailstop = new Mailstop();
  const inbox = await mailstop.inboxes.create({ tag: process.argv[2] });
  console.log(JSON.stringify({ address: inbox.address }));
  const message = await mailstop.messages.waitFor(inbox.id, { subject_contains: "packed" }, { timeoutMs: 30_000 });
  console.log(JSON.stringify({ subject: message.subject, from: "require" }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
