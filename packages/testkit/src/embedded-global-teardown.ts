import { rmSync } from "node:fs";

/** Removes the run's PGlite template. */
export default async function embeddedGlobalTeardown(): Promise<void> {
  const root = globalThis.__MAILSTOP_PGLITE_TEMPLATE__;
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
}
