import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { type ErrorDetails, MailstopError } from "@mailstop/core";
import type { OpenApiDocument } from "./document";
import { escapePointer, listOperations, type OperationSpec } from "./operations";

/*
 * Request validation derived from the OpenAPI document with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1). Written here rather than taken from express-openapi-validator
 * because the contract needs what that library does not do: clamp (not refuse) values above
 * `x-clamp-maximum`, accept array query values repeated or comma-separated, and report
 * failures in mailstop's own envelope.
 */

export interface ValidationIssue {
  in: "body" | "query" | "path";
  path: string;
  message: string;
}

export interface RequestParts {
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, string>;
}

export interface ValidRequest {
  body: any;
  query: Record<string, any>;
  params: Record<string, string>;
}

export interface OperationValidator {
  spec: OperationSpec;
  /** Compiles the operation's schemas now rather than on its first request (validator.test.ts compiles every operation so). */
  prepare(): void;
  /** Returns the request with defaults applied and values coerced, or throws `invalid_request`. */
  validate(request: RequestParts): ValidRequest;
}

const DOC_ID = "mailstop-openapi.json";
const VOCABULARY = ["discriminator", "example", "xml", "externalDocs", "x-clamp-maximum", "x-scope", "x-rate-class"];

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: true,
    coerceTypes: coerce ? "array" : false,
    strict: "log",
    logger: false,
    // See compileValidators: the schemas compiled are `$ref`s into the document, so the
    // meta-schema (compiled on first use, ~60 ms) would check a one-keyword wrapper only.
    validateSchema: false,
  });
  addFormats(ajv);
  ajv.addVocabulary(VOCABULARY.filter((k) => k !== "x-clamp-maximum"));
  // Clamps a number down to the keyword's value instead of failing it.
  ajv.addKeyword({
    keyword: "x-clamp-maximum",
    type: "number",
    modifying: true,
    schemaType: "number",
    validate: (max: number, data: number, _schema: unknown, cxt?: { parentData: any; parentDataProperty: string | number }) => {
      if (cxt && data > max) cxt.parentData[cxt.parentDataProperty] = max;
      return true;
    },
  });
  return ajv;
}

/** A deep copy of `doc` in which every `maximum` that `x-clamp-maximum` overrides is removed. */
function withoutClampedMaximums<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutClampedMaximums) as T;
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = withoutClampedMaximums(value);
  if ("x-clamp-maximum" in copy) delete copy.maximum;
  return copy as T;
}

function resolveRef(doc: OpenApiDocument, node: any): any {
  let current = node;
  while (current && typeof current.$ref === "string" && current.$ref.startsWith("#/")) {
    current = current.$ref
      .slice(2)
      .split("/")
      .map((s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((acc: any, key: string) => acc?.[key], doc);
  }
  return current;
}

function issuesOf(errors: ErrorObject[] | null | undefined, location: ValidationIssue["in"]): ValidationIssue[] {
  return (errors ?? []).map((error) => {
    let path = error.instancePath;
    let message = error.message ?? "is invalid";
    if (error.keyword === "required") {
      path = `${path}/${escapePointer(String(error.params.missingProperty))}`;
      message = "is required";
    } else if (error.keyword === "additionalProperties") {
      path = `${path}/${escapePointer(String(error.params.additionalProperty))}`;
      message = "is not an allowed property";
    } else if (error.keyword === "enum") {
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    }
    return { in: location, path: path === "" ? "/" : path, message };
  });
}

/**
 * Throws `invalid_request` listing every issue (docs/api.md "Validation failures"); `details`
 * adds keys beside `errors` (a refused webhook URL's `reason`).
 */
export function invalidRequest(issues: ValidationIssue[], reason?: string, details?: ErrorDetails): never {
  const first = issues[0];
  throw new MailstopError("invalid_request", reason ?? (first ? `${first.in} ${first.path} ${first.message}` : "The request is invalid."), {
    details: { ...details, errors: issues },
  });
}

const compiled = new WeakMap<OpenApiDocument, Map<string, OperationValidator>>();

/** One validator per operation of `doc`, compiled once per document and process. */
export function buildValidators(doc: OpenApiDocument): Map<string, OperationValidator> {
  let validators = compiled.get(doc);
  if (!validators) {
    validators = compileValidators(doc);
    compiled.set(doc, validators);
  }
  return validators;
}

function compileValidators(doc: OpenApiDocument): Map<string, OperationValidator> {
  const prepared = withoutClampedMaximums(doc);
  const bodyAjv = newAjv(false);
  const paramAjv = newAjv(true);
  // Not checked against JSON Schema's meta-schema (newAjv): that check of the whole document
  // was ~160 ms of every start (issue 34) and looked at its top level only (an OpenAPI
  // document's `components` and `paths` are no JSON Schema keywords). Each operation's schemas
  // are checked when they compile, and validator.test.ts compiles every operation of both documents.
  bodyAjv.addSchema(prepared, DOC_ID);
  paramAjv.addSchema(prepared, DOC_ID);

  // Each operation is compiled when first prepared or used, not with the document nor when its
  // route is mounted: a process answers some of its operations only (a waiter serves 3 of the
  // public document's 39, an idle `pnpm start` none), and compiling the monolith's mounted
  // routes cost ≈ 0.4 s of its start; all of them, 2.4 MB of heap.
  const validators = new Map<string, OperationValidator>();
  for (const spec of listOperations(prepared).values()) {
    let validate: OperationValidator["validate"] | undefined;
    const compile = () => (validate ??= compileOperation(prepared, spec, bodyAjv, paramAjv));
    validators.set(spec.operationId, {
      spec,
      prepare: () => void compile(),
      validate: (request) => compile()(request),
    });
  }
  return validators;
}

/** The validation of one operation: its path, query and body schemas compiled. */
function compileOperation(prepared: OpenApiDocument, spec: OperationSpec, bodyAjv: Ajv2020, paramAjv: Ajv2020): OperationValidator["validate"] {
  const parameters = operationParameters(prepared, spec);
  const queryParams = parameters.filter((p) => p.in === "query");
  const arrayParams = new Set(queryParams.filter((p) => resolveRef(prepared, p.schema)?.type === "array").map((p) => p.name));
  const numericParams = new Set(queryParams.filter((p) => ["integer", "number"].includes(resolveRef(prepared, p.schema)?.type)).map((p) => p.name));
  const querySchema = compileParams(paramAjv, queryParams);
  const pathSchema = compileParams(
    paramAjv,
    parameters.filter((p) => p.in === "path"),
  );

  const content = resolveRef(prepared, spec.operation.requestBody)?.content?.["application/json"];
  const bodyRequired = resolveRef(prepared, spec.operation.requestBody)?.required === true;
  const bodySchema: ValidateFunction | null = content?.schema
    ? bodyAjv.compile({ $ref: `${DOC_ID}${spec.pointer}/requestBody/content/application~1json/schema` })
    : null;

  return (request) => {
    const issues: ValidationIssue[] = [];
    const params = { ...request.params };
    if (pathSchema && !pathSchema(params)) issues.push(...issuesOf(pathSchema.errors, "path"));

    const query = normaliseQuery(request.query, arrayParams);
    const notNumbers = notDecimalNumbers(query, numericParams);
    issues.push(...notNumbers);
    if (querySchema && !querySchema(query)) issues.push(...issuesOf(querySchema.errors, "query").filter((issue) => !notNumbers.some((bad) => bad.path === issue.path)));

    let body = request.body;
    if (bodySchema) {
      if (body === undefined && !bodyRequired) body = {};
      if (body === undefined) issues.push({ in: "body", path: "/", message: "a JSON body is required" });
      else if (!bodySchema(body)) issues.push(...issuesOf(bodySchema.errors, "body"));
    }
    if (issues.length > 0) invalidRequest(issues);
    return { body, query, params };
  };
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: any;
  /** Where the parameter's schema sits in the document, so its `$ref`s resolve there. */
  schemaPointer: string;
}

/** The path-level and operation-level parameters of an operation, `$ref`s followed. */
function defaultOf(schema: any): { default?: unknown } {
  return schema && "default" in schema ? { default: schema.default } : {};
}

function operationParameters(doc: OpenApiDocument, spec: OperationSpec): Parameter[] {
  const pathPointer = spec.pointer.slice(0, spec.pointer.lastIndexOf("/"));
  const sources: [any[] | undefined, string][] = [
    [spec.pathItem.parameters, `${pathPointer}/parameters`],
    [spec.operation.parameters, `${spec.pointer}/parameters`],
  ];
  return sources.flatMap(([list, base]) =>
    (list ?? []).map((raw, index) => {
      const pointer = typeof raw.$ref === "string" ? raw.$ref : `${base}/${index}`;
      const p = resolveRef(doc, raw);
      return { name: p.name, in: p.in, required: p.required === true, schema: resolveRef(doc, p.schema), schemaPointer: `${DOC_ID}${pointer}/schema` };
    }),
  );
}

function compileParams(ajv: Ajv2020, parameters: Parameter[]): ValidateFunction | null {
  if (parameters.length === 0) return null;
  return ajv.compile({
    type: "object",
    // Ajv fills a default only when it sits beside the property, not behind a $ref.
    properties: Object.fromEntries(
      parameters.map((p) => [p.name, p.schema === undefined ? {} : { $ref: p.schemaPointer, ...defaultOf(p.schema) }]),
    ),
    required: parameters.filter((p) => p.required).map((p) => p.name),
    // Unknown query parameters (cache busters, tracing) are ignored, not refused.
    additionalProperties: true,
  });
}

/** Copies the parsed query, splitting comma-separated values of array parameters. */
function normaliseQuery(query: Record<string, unknown>, arrayParams: ReadonlySet<string>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...query };
  for (const name of arrayParams) {
    const value = copy[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    copy[name] = values.flatMap((v) => (typeof v === "string" ? v.split(",").filter((s) => s !== "") : [v]));
  }
  return copy;
}

/** A number written in decimal: digits, an optional fraction and exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Numeric query values that are no finite decimal number. Ajv's coercion takes whatever
 * JavaScript's Number() does, so `Infinity`, `1e400` and `0x10` would pass as integers, and
 * Infinity even past `maximum`, reaching the database as a bigint it refuses.
 */
function notDecimalNumbers(query: Record<string, unknown>, numericParams: ReadonlySet<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of numericParams) {
    const value = query[name];
    if (typeof value !== "string") continue;
    if (!DECIMAL.test(value) || !Number.isFinite(Number(value))) issues.push({ in: "query", path: `/${escapePointer(name)}`, message: "must be a finite decimal number" });
  }
  return issues;
}
