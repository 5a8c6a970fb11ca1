import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A 32-byte key kept as hex in `<dir>/<name>`, created (readable by this user only) on first
 * use, so what it signs or seals stays valid across restarts of a single-process install.
 */
export function loadOrCreateKeyFile(dir: string, name: string): Buffer {
  const path = join(dir, name);
  const read = () => Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  try {
    return read();
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
  }
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  // `wx`: two starts racing on an empty directory keep the first key.
  try {
    writeFileSync(path, key.toString("hex"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    return read();
  }
  return key;
}
