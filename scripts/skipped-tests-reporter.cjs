// A jest reporter that names every skipped test with the reason it carries, at the end of the
// run: jest's default reporter only counts skips, so a "7 skipped" line said nothing of why.
// The skip helpers (@mailstop/testkit's describeWithEngines, itInProcess…, @mailstop/deploy's
// describeWithTool) put the reason in the test's name as `[…]`; a skip without one fails the
// run, so no test is ever skipped silently.
const { relative } = require("node:path");

const SKIPPED = new Set(["pending", "skipped", "todo", "disabled"]);

class SkippedTestsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.unexplained = [];
  }

  onRunComplete(_contexts, results) {
    const lines = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (!SKIPPED.has(test.status)) continue;
        const name = [...test.ancestorTitles, test.title].join(" › ");
        const line = `${relative(this.rootDir, file.testFilePath)} › ${name}`;
        lines.push(line);
        if (!/\[[^\]]+\]/.test(name)) this.unexplained.push(line);
      }
    }
    if (lines.length === 0) return;
    process.stdout.write(`\nskipped tests (${lines.length}), each with its reason in [brackets]:\n${lines.map((line) => `  - ${line}\n`).join("")}`);
    if (this.unexplained.length > 0) process.stdout.write(`skipped without a reason (fails the run):\n${this.unexplained.map((line) => `  - ${line}\n`).join("")}`);
  }

  getLastError() {
    if (this.unexplained.length > 0) return new Error(`${this.unexplained.length} test(s) skipped without a reason`);
    return undefined;
  }
}

module.exports = SkippedTestsReporter;
