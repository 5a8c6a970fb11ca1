import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@mailstop/config";
import { createLogger } from "@mailstop/logging";
import { NoMetrics } from "@mailstop/metrics";
import { GENERATED_SECRETS_KEY_FILE, secretsModule } from "./secrets.module";

const dataDir = mkdtempSync(join(tmpdir(), "mailstop-secrets-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function boxOf(env: Record<string, string>) {
  const config = loadConfig({ MAILSTOP_DATA_DIR: dataDir, ...env });
  const module = secretsModule.create({ config, logger: createLogger({ level: "silent" }), print: () => undefined, notReady: async () => [], metrics: new NoMetrics() });
  return (await module.start()).secrets;
}

describe("the secrets module", () => {
  it("without MAILSTOP_SECRETS_KEY (the monolith): generates a key under the data directory, 0600, and keeps it across restarts", async () => {
    const sealed = (await boxOf({})).seal("whsec_kept");
    expect(statSync(join(dataDir, GENERATED_SECRETS_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect((await boxOf({})).open(sealed)).toBe("whsec_kept");
  });

  it("with MAILSTOP_SECRETS_KEY: seals with it, whatever the data directory holds", async () => {
    const key = "5a".repeat(32);
    const sealed = (await boxOf({ MAILSTOP_SECRETS_KEY: key })).seal("whsec_given");
    expect((await boxOf({ MAILSTOP_SECRETS_KEY: Buffer.from(key, "hex").toString("base64") })).open(sealed)).toBe("whsec_given");
    await expect((async () => (await boxOf({})).open(sealed))()).rejects.toThrow();
  });
});
