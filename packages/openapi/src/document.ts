import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** An OpenAPI 3.1 document as parsed JSON. */
export type OpenApiDocument = Record<string, any>;

const OPENAPI_DIR = resolve(__dirname, "../openapi");

/**
 * Each document's JSON text, by file name: defined by the compiled bundle's build
 * (packages/cli/bin/build-mailstop.cjs), which parses the YAML once and records the files among
 * its inputs (an edited document makes the bundle stale). Undeclared when the TypeScript runs.
 * Parsing openapi.yaml took ≈ 120 ms of every start and loaded the yaml library.
 */
declare const MAILSTOP_OPENAPI_DOCUMENTS: Record<string, string> | undefined;

function load(file: string): OpenApiDocument {
  const built = typeof MAILSTOP_OPENAPI_DOCUMENTS === "object" ? MAILSTOP_OPENAPI_DOCUMENTS[file] : undefined;
  if (built !== undefined) return JSON.parse(built) as OpenApiDocument;
  const { parse } = require("yaml") as typeof import("yaml");
  return parse(readFileSync(resolve(OPENAPI_DIR, file), "utf8")) as OpenApiDocument;
}

let publicDoc: OpenApiDocument | undefined;
let adminDoc: OpenApiDocument | undefined;

/** The public document served at /openapi.json: the contract every public route is built from. */
export function publicDocument(): OpenApiDocument {
  publicDoc ??= load("openapi.yaml");
  return publicDoc;
}

/** The operator's admin API (docs/operator.md "The admin API"); never published, but validated the same way. */
export function adminDocument(): OpenApiDocument {
  adminDoc ??= load("admin.yaml");
  return adminDoc;
}

export const OPENAPI_FILES = { public: resolve(OPENAPI_DIR, "openapi.yaml"), admin: resolve(OPENAPI_DIR, "admin.yaml") };
