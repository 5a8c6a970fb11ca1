import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A directory of its own for each test of the calling `describe` (or file), made under the
 * system's temporary directory before the test and removed after it; call the returned
 * function inside a test for its path. Imported by path (`@mailstop/testkit/src/temp-dir`),
 * so a unit test does not load the engines the testkit's index brings.
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `mailstop-${prefix}-`));
  });
  afterEach(() => {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  return () => {
    if (dir === null) throw new Error("useTempDir: the directory exists only while a test runs");
    return dir;
  };
}
