import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDir } from "@mailstop/testkit/src/temp-dir";
import { writeOrCheckGenerated } from "./generated-files";

describe("writeOrCheckGenerated", () => {
  const tempDir = useTempDir("generated");

  it("writes every file, creating its directory", () => {
    const file = join(tempDir(), "deep", "er", "out.txt");
    expect(writeOrCheckGenerated({ [file]: "content\n" }, false)).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe("content\n");
  });

  it("with check, writes nothing and names each file missing or different", () => {
    const same = join(tempDir(), "same.txt");
    const changed = join(tempDir(), "changed.txt");
    const missing = join(tempDir(), "missing.txt");
    writeFileSync(same, "a");
    writeFileSync(changed, "old");
    expect(writeOrCheckGenerated({ [same]: "a", [changed]: "new", [missing]: "m" }, true)).toEqual([changed, missing]);
    expect(readFileSync(changed, "utf8")).toBe("old");
  });
});
