import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";

/** An OpenAPI 3.1 document as parsed JSON. */
export type OpenApiDocument = Record<string, any>;

const OPENAPI_DIR = resolve(__dirname, "../openapi");

function load(file: string): OpenApiDocument {
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
