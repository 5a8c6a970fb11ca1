import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import integrationSetup from "./global-setup";
import { SHARED_FLEET_ENV, type SharedFleet, startTestFleet } from "./fleet-world";

declare global {
  // eslint-disable-next-line no-var
  var __MAILSTOP_FLEET__: { stop(): Promise<void> } | undefined;
}

/**
 * The fleet world: the integration run's engines (a database of the run's own, Redis), then one
 * split fleet on them behind nginx, shared by the test files (each isolates itself by project).
 */
export default async function fleetGlobalSetup(): Promise<void> {
  await integrationSetup();
  const logDir = mkdtempSync(join(tmpdir(), "mailstop-fleet-logs-"));
  const logFile = join(logDir, "fleet.log");
  writeFileSync(logFile, "");
  const { fleet, s3, env } = await startTestFleet({}, { logFile });
  globalThis.__MAILSTOP_FLEET__ = {
    stop: async () => {
      await fleet.stop();
      await s3.stop();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  const shared: SharedFleet = { url: fleet.url, smtp: fleet.smtp, env, s3: { endpoint: s3.endpoint, port: s3.port, directory: s3.directory }, logFile };
  process.env[SHARED_FLEET_ENV] = JSON.stringify(shared);
}
