// Four projects: `unit` (pure logic, no I/O), `integration` (a started service against real
// engines, in a database created for this run), `embedded` (the end-to-end and contract files
// again, on the monolith's embedded stand-ins: one suite, both worlds) and `fleet` (the
// end-to-end files against the four services as separate processes behind nginx; jest runs it
// on its own, see scripts/run-tests.mjs). TypeScript is compiled by
// SWC, not type-checked here: `pnpm test` type-checks every package first with tsc. Run jest
// through `node scripts/run-tests.mjs` (or with NODE_OPTIONS=--experimental-vm-modules): PGlite
// loads its WebAssembly with a dynamic import, which jest's module sandbox allows only then.
const transform = {
  "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }],
};
// ESM packages built for Node (packages/sdk) import their own modules as `./x.js`, which is
// `./x.ts` in the sources jest runs: drop the extension and let jest resolve it.
const moduleNameMapper = { "^(\\.{1,2}/.*)\\.js$": "$1" };
const shared = { transform, moduleNameMapper, testEnvironment: "node", roots: ["<rootDir>/packages", "<rootDir>/services", "<rootDir>/bench"] };

/**
 * The files that run in both worlds: the end-to-end files (they talk to a started mailstop over
 * HTTP and SMTP, whatever its engines) and the ports' contract suites (each adapter the world has).
 */
const BOTH_WORLDS = [
  "<rootDir>/packages/api/src/**/*.int.test.ts",
  "<rootDir>/packages/smtp-edge/src/smtp-edge.int.test.ts",
  "<rootDir>/packages/smtp-edge/src/accept-ledger.int.test.ts",
  "<rootDir>/packages/parser/src/parse-message.int.test.ts",
  "<rootDir>/packages/parser/src/reap.job.int.test.ts",
  // The checks the parser stores from the connection the edge recorded: that record travels in
  // each world's job queue (BullMQ, the database's, the fleet's BullMQ across processes); and
  // the spam score, whose spamd setting reaches each world's parser.
  "<rootDir>/packages/parser/src/checks/message-checks.int.test.ts",
  "<rootDir>/packages/parser/src/checks/spam.int.test.ts",
  "<rootDir>/packages/runtime/src/**/*.world.int.test.ts",
  "<rootDir>/packages/mcp/src/**/*.int.test.ts",
  "<rootDir>/packages/**/src/**/*.contract.int.test.ts",
  "<rootDir>/packages/sdk/src/**/*.int.test.ts",
  "<rootDir>/packages/cli/src/wait.int.test.ts",
  "<rootDir>/packages/cli/src/resources.int.test.ts",
];

/**
 * Files named `*.engines.int.test.ts` run only in the `integration` project: every test in them
 * needs the real engines in this process (instances sharing a Redis, a Redis or database of the
 * file's own to break), so in the other worlds they could only be skipped.
 */
const ENGINES_ONLY = "\\.engines\\.int\\.test\\.ts$";

/**
 * Files named `*.in-process.int.test.ts` run in the `integration` and `embedded` projects but
 * not the fleet's: every test in them needs the server in the test's own process (its
 * database, bus, log or a stop of its own), which the fleet's services are not, so there they
 * could only be skipped.
 */
const IN_PROCESS_ONLY = "\\.in-process\\.int\\.test\\.ts$";

/** The end-to-end files the split fleet runs: everything a client can do over HTTP and SMTP. */
const FLEET = [
  "<rootDir>/packages/api/src/**/*.int.test.ts",
  "<rootDir>/packages/smtp-edge/src/smtp-edge.int.test.ts",
  "<rootDir>/packages/parser/src/checks/message-checks.int.test.ts",
  "<rootDir>/packages/parser/src/checks/spam.int.test.ts",
];

/** @type {import('jest').Config} */
module.exports = {
  // Every skipped test is listed with its reason at the end of a run (scripts/skipped-tests-reporter.cjs).
  reporters: ["default", "<rootDir>/scripts/skipped-tests-reporter.cjs"],
  // Generous: a 2-core CI runner starts PGlite, s3rver and whole fleets while other files run.
  testTimeout: 60000,
  // A worker whose heap outgrows this after a file is replaced (each embedded server holds a
  // PGlite instance, whose WebAssembly memory the module sandbox can keep alive).
  workerIdleMemoryLimit: "1536MB",
  projects: [
    { ...shared, displayName: "unit", testMatch: ["**/src/**/*.test.ts"], testPathIgnorePatterns: ["/node_modules/", "\\.int\\.test\\.ts$"] },
    {
      ...shared,
      displayName: "integration",
      testMatch: ["**/*.int.test.ts"],
      globalSetup: "<rootDir>/packages/testkit/src/global-setup.ts",
      globalTeardown: "<rootDir>/packages/testkit/src/global-teardown.ts",
    },
    {
      ...shared,
      displayName: "embedded",
      testMatch: BOTH_WORLDS,
      testPathIgnorePatterns: ["/node_modules/", ENGINES_ONLY],
      setupFiles: ["<rootDir>/packages/testkit/src/embedded-world.setup.ts"],
      globalSetup: "<rootDir>/packages/testkit/src/embedded-global-setup.ts",
      globalTeardown: "<rootDir>/packages/testkit/src/embedded-global-teardown.ts",
    },
    {
      ...shared,
      displayName: "fleet",
      testMatch: FLEET,
      testPathIgnorePatterns: ["/node_modules/", ENGINES_ONLY, IN_PROCESS_ONLY],
      setupFiles: ["<rootDir>/packages/testkit/src/fleet-world.setup.ts"],
      globalSetup: "<rootDir>/packages/testkit/src/fleet-global-setup.ts",
      globalTeardown: "<rootDir>/packages/testkit/src/fleet-global-teardown.ts",
    },
  ],
};
