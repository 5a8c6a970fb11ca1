import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/** Runs `script` in a fresh node process with tsx, from this package, and returns its output. */
function inFreshProcess(script: string): string {
  return execFileSync(process.execPath, ["--import", "tsx", "-e", script], { cwd: resolve(__dirname, ".."), encoding: "utf8", timeout: 60_000 }).trim();
}

describe("@mailstop/db", () => {
  it("does not load PGlite (≈45 MB of RSS) until an embedded database is created", () => {
    const loaded = `Object.keys(require.cache).some((file) => file.includes("@electric-sql"))`;
    const output = inFreshProcess(`
      const db = require("./src/index.ts");
      const before = ${loaded};
      const embedded = db.createEmbeddedDatabase(null);
      console.log(JSON.stringify([before, ${loaded}]));
      void embedded.destroy();
    `);
    expect(JSON.parse(output.split("\\n").pop()!)).toEqual([false, true]);
  });
});
