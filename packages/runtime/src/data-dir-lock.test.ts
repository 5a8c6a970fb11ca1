import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDir } from "@mailstop/testkit/src/temp-dir";
import { lockDataDir } from "./data-dir-lock";

describe("lockDataDir", () => {
  const dir = useTempDir("lock");

  it("holds the directory for this process until released", () => {
    const release = lockDataDir(dir());
    expect(readFileSync(join(dir(), "mailstop.pid"), "utf8")).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir(), "mailstop.pid"))).toBe(false);
  });

  it("refuses a directory another running process holds, naming it", () => {
    writeFileSync(join(dir(), "mailstop.pid"), String(process.ppid));
    expect(() => lockDataDir(dir())).toThrow(new RegExp(`in use by another mailstop \\(pid ${process.ppid}\\)`));
  });

  it("takes over the lock of a process that no longer runs", () => {
    writeFileSync(join(dir(), "mailstop.pid"), "4194302");
    const release = lockDataDir(dir());
    expect(readFileSync(join(dir(), "mailstop.pid"), "utf8")).toBe(String(process.pid));
    release();
  });
});
