import { join } from "node:path";

// scripts/skipped-tests-reporter.cjs is what keeps a skip from being silent: it lists every
// skipped test with the reason in its name, and fails the run for a skip without one.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SkippedTestsReporter = require("../../../scripts/skipped-tests-reporter.cjs") as new (config: { rootDir: string }) => {
  onRunComplete(contexts: unknown, results: unknown): void;
  getLastError(): Error | undefined;
};

const ROOT = "/repo";
const results = (tests: { title: string; status: string }[]) => ({
  testResults: [{ testFilePath: join(ROOT, "packages/api/src/x.int.test.ts"), testResults: tests.map((test) => ({ ...test, ancestorTitles: ["a block"] })) }],
});

function run(tests: { title: string; status: string }[]): { printed: string; error: Error | undefined } {
  const reporter = new SkippedTestsReporter({ rootDir: ROOT });
  const writes: string[] = [];
  const spy = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => writes.push(String(chunk)) > 0);
  try {
    reporter.onRunComplete(new Set(), results(tests));
  } finally {
    spy.mockRestore();
  }
  return { printed: writes.join(""), error: reporter.getLastError() };
}

describe("the skipped-tests reporter", () => {
  it("lists each skipped test with the reason in its name, and passes the run", () => {
    const { printed, error } = run([
      { title: "runs", status: "passed" },
      { title: "holds a slot [in-process only: it stops its own server]", status: "pending" },
    ]);
    expect(printed).toContain("skipped tests (1)");
    expect(printed).toContain("packages/api/src/x.int.test.ts › a block › holds a slot [in-process only: it stops its own server]");
    expect(printed).not.toContain("runs");
    expect(error).toBeUndefined();
  });

  it("fails the run for a test skipped or left todo without a reason", () => {
    const { printed, error } = run([
      { title: "quietly skipped", status: "skipped" },
      { title: "later", status: "todo" },
    ]);
    expect(printed).toContain("skipped without a reason (fails the run)");
    expect(error?.message).toBe("2 test(s) skipped without a reason");
  });

  it("prints nothing and passes when nothing was skipped", () => {
    expect(run([{ title: "runs", status: "passed" }])).toEqual({ printed: "", error: undefined });
  });
});
