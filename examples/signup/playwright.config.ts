import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import type { MailstopFixtureOptions } from "@mailstop/playwright";

// The app under test runs on APP_PORT and sends its mail through SMTP_URL (default: mailstop's
// receiving edge). CAPTURE_DOMAIN says the app sends through the capture relay instead: each
// test's inbox is then a recipient on that domain. mailstop itself is found through
// MAILSTOP_API_URL and MAILSTOP_API_KEY.
const port = Number(process.env.APP_PORT ?? 3000);
const captureDomain = process.env.CAPTURE_DOMAIN || undefined;
// Debian's and Ubuntu's Chromium when present (`npx playwright install` is then not needed).
const executablePath = process.env.CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export default defineConfig<{ mailstopOptions: MailstopFixtureOptions }>({
  testDir: "tests",
  timeout: 60_000,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : "list",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: "chromium",
    launchOptions: {
      executablePath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
    mailstopOptions: captureDomain === undefined ? {} : { captureDomain },
  },
  webServer: {
    command: "node server.mjs",
    url: `http://127.0.0.1:${port}/health`,
    env: { PORT: String(port) },
    reuseExistingServer: !process.env.CI,
    stdout: "pipe",
  },
});
