// Three projects: `unit` (pure logic, no I/O), `integration` (a started service against real
// engines, in a database created for this run) and `embedded` (the end-to-end files again, on
// the monolith's embedded stand-ins: one suite, both worlds). TypeScript is compiled by SWC, not type-checked
// here: `pnpm test` type-checks every package first with tsc.
const transform = {
  "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }],
};
const shared = { transform, testEnvironment: "node", roots: ["<rootDir>/packages", "<rootDir>/services"] };

/** The end-to-end files: they talk to a started mailstop over HTTP and SMTP, whatever its engines. */
const END_TO_END = [
  "<rootDir>/packages/api/src/routes/**/*.int.test.ts",
  "<rootDir>/packages/smtp-edge/src/smtp-edge.int.test.ts",
  "<rootDir>/packages/parser/src/parse-message.int.test.ts",
  "<rootDir>/packages/parser/src/reap.job.int.test.ts",
];

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
    { ...shared, displayName: "embedded", testMatch: END_TO_END, setupFiles: ["<rootDir>/packages/testkit/src/embedded-world.setup.ts"] },
  ],
};
