import { defineConfig } from "@playwright/test";

// No browser: the test uses only the inbox fixture.
export default defineConfig({ testDir: "tests", timeout: 60_000, workers: 1 });
