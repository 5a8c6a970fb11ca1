import { dropDatabase } from "./databases";

/** Drops this run's database (and stops its container, if one was started). */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis.__MAILSTOP_RUN__;
  if (!run) return;
  await dropDatabase(run.serverUrl, run.database);
  for (const stop of run.stopContainers) await stop();
}
