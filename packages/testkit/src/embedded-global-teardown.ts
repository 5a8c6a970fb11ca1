import { rmSync } from "node:fs";

/** Removes the run's PGlite template and stops its DNS server. */
export default async function embeddedGlobalTeardown(): Promise<void> {
  await globalThis.__MAILSTOP_RUN_DNS_STOP__?.();
  const root = globalThis.__MAILSTOP_PGLITE_TEMPLATE__;
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
}
