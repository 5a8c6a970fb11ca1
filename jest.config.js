// Two projects: `unit` (pure logic, no I/O) and `integration` (a started service against real
// engines, in a database created for this run). TypeScript is compiled by SWC, not type-checked
// here: `pnpm test` type-checks every package first with tsc.
const transform = {
  "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }],
};
const shared = { transform, testEnvironment: "node", roots: ["<rootDir>/packages", "<rootDir>/services"] };

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: "unit", testMatch: ["**/src/**/*.test.ts"], testPathIgnorePatterns: ["/node_modules/", "\\.int\\.test\\.ts$"] },
    {
      ...shared,
      displayName: "integration",
      testMatch: ["**/*.int.test.ts"],
      globalSetup: "<rootDir>/packages/testkit/src/global-setup.ts",
      globalTeardown: "<rootDir>/packages/testkit/src/global-teardown.ts",
    },
  ],
};
