import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOrCreateKeyFile } from "./key-file";

describe("loadOrCreateKeyFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "mailstop-key-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates 32 random bytes readable by this user only, then reads the same key back", () => {
    const created = loadOrCreateKeyFile(join(dir, "nested"), "a.key");
    expect(created).toHaveLength(32);
    expect(statSync(join(dir, "nested", "a.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, "nested", "a.key"), "utf8")).toBe(created.toString("hex"));
    expect(loadOrCreateKeyFile(join(dir, "nested"), "a.key").equals(created)).toBe(true);
    expect(loadOrCreateKeyFile(join(dir, "nested"), "b.key").equals(created)).toBe(false);
  });
});
