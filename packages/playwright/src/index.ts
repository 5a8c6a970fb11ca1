export { expect, test, type MailstopFixtureOptions, type MailstopTestFixtures, type MailstopWorkerFixtures } from "./fixture.js";
export { MailstopInbox, type LinkKind, type WaitOptions } from "./inbox.js";
export { WaitTimeoutError, MailstopError } from "@mailstop/sdk";
