import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { adminDocument, publicDocument } from "./document";

/*
 * The real validator, @seriousme/openapi-schema-validator, is a devDependency of this package
 * only (it does not resolve from @mailstop/api) and is ESM-only, which jest's CommonJS runtime
 * cannot load. So it runs in a child node process, in this package's directory, on the
 * document sent over stdin. GET /openapi.json serves exactly publicDocument() (asserted in
 * packages/api/src/routes/meta/meta.int.test.ts).
 */
const VALIDATE = `
import { Validator } from "@seriousme/openapi-schema-validator";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
`;

function validate(doc: unknown): Promise<{ valid: boolean; version: string; errors: unknown }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", VALIDATE], {
      cwd: resolve(__dirname, ".."),
      timeout: 20_000,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code, signal) => {
      if (code !== 0) return fail(new Error(`validator exited ${code ?? signal}: ${stderr}`));
      try {
        done(JSON.parse(stdout));
      } catch (error) {
        fail(new Error(`validator printed ${stdout} ${stderr}`, { cause: error }));
      }
    });
    child.stdin.end(JSON.stringify(doc));
  });
}

describe("the OpenAPI documents", () => {
  it("the public document (served at /openapi.json) is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(publicDocument());
    expect(result).toEqual({ valid: true, version: "3.1", errors: null });
  });

  it("the admin document is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(adminDocument());
    expect(result).toEqual({ valid: true, version: "3.1", errors: null });
  });

  it("the validator rejects an invalid document (the check can fail)", async () => {
    const broken = { ...publicDocument(), info: { title: "mailstop" } };
    const result = await validate(broken);
    expect(result.valid).toBe(false);
    expect(result.errors).not.toBeNull();
  });
});
