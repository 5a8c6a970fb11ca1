import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The two modes of a package's `generate` script: writes `files` (absolute path → content),
 * creating their directories; or, with `check` (the package's `check` script, run by `pnpm
 * test`), writes nothing and returns the paths whose committed file is missing or differs.
 * Not exported from the package's index: only build scripts use it, never a service.
 */
export function writeOrCheckGenerated(files: Readonly<Record<string, string>>, check: boolean): string[] {
  const drifted: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    if (!check) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      continue;
    }
    let committed: string | null = null;
    try {
      committed = readFileSync(path, "utf8");
    } catch {
      // Missing: drifted.
    }
    if (committed !== content) drifted.push(path);
  }
  return drifted;
}
