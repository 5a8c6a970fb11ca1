import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@mailstop/testkit";
import { type SpamdAddress, spamdPing } from "./spamd-client";

/** Starting spamd compiles SpamAssassin's rules: about 10 s alone, more on a loaded 2-core runner. */
export const SPAMD_START_DEADLINE_MS = 120_000;

export interface TestSpamd extends SpamdAddress {
  /** `127.0.0.1:<port>`, for MAILSTOP_SPAMD. */
  server: string;
  stop(): Promise<void>;
}

/**
 * Debian's spamd (package `spamd`, which .ci/run installs) as a child of the test, on a free
 * loopback port: local tests only (`--local`: no DNS blocklists, the machine has no outside
 * network), no per-user configuration, no Bayes (nothing learnt between runs), one child.
 * Resolves once it answers PING; rejects if it exits first or does not answer within
 * SPAMD_START_DEADLINE_MS, with what it printed.
 */
export async function startTestSpamd(): Promise<TestSpamd> {
  const home = await mkdtemp(join(tmpdir(), "mailstop-spamd-"));
  const port = await freePort();
  const args = [
    `--listen=127.0.0.1:${port}`,
    "--allowed-ips=127.0.0.1",
    "--local",
    "--nouser-config",
    "--max-children=1",
    "--min-children=1",
    `--helper-home-dir=${home}`,
    `--pidfile=${join(home, "spamd.pid")}`,
    "--syslog=stderr",
    "--cf=use_bayes 0",
    "--cf=bayes_auto_learn 0",
  ];
  let printed = "";
  let exited: string | null = null;
  const child: ChildProcess = spawn("spamd", args, { stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (printed = (printed + chunk.toString("utf8")).slice(-8_000)));
  child.on("error", (error) => (exited = `could not run spamd (${error.message}): apt-get install spamassassin spamd`));
  child.on("exit", (code, signal) => (exited ??= `spamd exited (${signal ?? code})`));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && exited === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await rm(home, { recursive: true, force: true });
  };
  const address = { host: "127.0.0.1", port };
  const deadline = Date.now() + SPAMD_START_DEADLINE_MS;
  for (;;) {
    if (exited !== null) break;
    try {
      await spamdPing(address, 2_000);
      return { ...address, server: `127.0.0.1:${port}`, stop };
    } catch {
      // Not listening yet (refused), or listening and still loading its rules.
    }
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`spamd did not answer PING on 127.0.0.1:${port}: ${exited ?? `not within ${SPAMD_START_DEADLINE_MS} ms`}\n${printed}`);
}
