import { existsSync } from "node:fs";
import type { Browser, LaunchOptions } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Flags for a headless Chromium in a container or CI runner: no sandbox (it needs user
 * namespaces these machines may not have), no GPU, and none of the background traffic
 * (updates, sync) that would show up in a test that counts outgoing requests.
 */
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"] as const;

/**
 * Starts headless Chromium through playwright-core (which downloads no browser). Uses
 * `MAILSTOP_CHROMIUM` when set (a test-only path, like the other test engine settings),
 * else CHROMIUM_PATH. Close it in `afterAll`. playwright-core is loaded here, not with the
 * testkit: every test file imports the testkit, and jest compiles each module again per file.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = process.env.MAILSTOP_CHROMIUM ?? CHROMIUM_PATH;
  if (!existsSync(executablePath)) {
    throw new Error(`No Chromium at ${executablePath}: install Debian's chromium (apt-get install chromium) or set MAILSTOP_CHROMIUM.`);
  }
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath, headless: true, ...options, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
}

export type { Browser, BrowserContext, Frame, Page } from "playwright-core";
