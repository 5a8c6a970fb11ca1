import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY_ROOT, importCycles, relativeImports, sourceImportGraph, trackedFiles } from "./source-tree";

// Rules of the tree as a whole (docs/decisions.md "Tests"): the contract is cited from the
// repository's own docs/, never from the spec files outside it, and no module imports another
// that imports it back.

describe("the repository cites its own docs", () => {
  // Spelled in pieces, so this file does not name them itself.
  const outside = ["SPEC", "DECISIONS", "OPERATOR"].map((name) => `${name}.md`);

  it("no tracked file outside docs/ (source, test, README, script, setting) names the spec files outside the repository", () => {
    const citing: string[] = [];
    for (const file of trackedFiles()) {
      if (file.startsWith("docs/")) continue;
      const bytes = readFileSync(join(REPOSITORY_ROOT, file));
      if (bytes.includes(0)) continue; // images and other binaries
      const text = bytes.toString("utf8");
      for (const name of outside) if (text.includes(name)) citing.push(`${file} names ${name}`);
    }
    expect(citing).toEqual([]);
  });
});

describe("imports run one way", () => {
  it("no two sources of the tree import each other, directly or around a circle", () => {
    expect(importCycles(sourceImportGraph())).toEqual([]);
  });

  it("finds a pair, a longer circle and a self-import, and nothing in a graph without one", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts", "c.ts"]],
      ["c.ts", ["d.ts"]],
      ["d.ts", ["e.ts"]],
      ["e.ts", ["c.ts"]],
      ["f.ts", ["f.ts"]],
      ["g.ts", ["a.ts"]],
    ]);
    expect(importCycles(graph)).toEqual([["a.ts", "b.ts"], ["c.ts", "d.ts", "e.ts"], ["f.ts"]]);
    expect(importCycles(new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", []]]))).toEqual([]);
  });

  it("reads relative imports of every form: named, type-only, re-exports, side effects, dynamic, require and ESM's .js names", () => {
    const files = new Set(["p/src/a.ts", "p/src/b.ts", "p/src/c.ts", "p/src/d/index.ts", "p/src/e.ts", "p/src/f.cjs", "p/lib.ts", "p/src/g.ts"]);
    const text = [
      'import { x } from "./a";',
      'import type {\n  Y,\n} from "./b";',
      'export * from "./c";',
      'import "./d";',
      'const e = await import("./e.js");',
      'const f = require("./f.cjs");',
      'export { z } from "../lib";',
      '// from "./g" in prose is not an import',
      'import { w } from "@scope/package";',
    ].join("\n");
    expect(relativeImports("p/src/main.ts", text, (path) => files.has(path)).sort()).toEqual(["p/lib.ts", "p/src/a.ts", "p/src/b.ts", "p/src/c.ts", "p/src/d/index.ts", "p/src/e.ts", "p/src/f.cjs"]);
  });
});
