import integrationTeardown from "./global-teardown";

/** Stops the shared fleet, then drops the run's database and Redis keys. */
export default async function fleetGlobalTeardown(): Promise<void> {
  await globalThis.__MAILSTOP_FLEET__?.stop();
  await integrationTeardown();
}
