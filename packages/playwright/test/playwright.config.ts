import { defineConfig } from "@playwright/test";

// The fixture's own behaviour, run by src/fixture.int.test.ts against a started mailstop
// (MAILSTOP_API_URL, MAILSTOP_API_KEY) with its receiving SMTP port in SMTP_PORT. No browser:
// these tests use only the `inbox` fixture, and some fail on purpose.
export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  reporter: [["json"]],
  workers: 1,
});
