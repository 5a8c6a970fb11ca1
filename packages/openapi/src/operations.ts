import type { OpenApiDocument } from "./document";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
export type HttpMethod = (typeof METHODS)[number];

/** One operation of a document, with the routing facts the server needs. */
export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v1/inboxes/{id}`. */
  path: string;
  /** The same path in express syntax, e.g. `/v1/inboxes/:id`. */
  expressPath: string;
  /** Required scope; null when a key is needed but no scope; undefined on public routes. */
  scope: string | null | undefined;
  rateClass: "read" | "write" | "exempt" | undefined;
  /** JSON pointer of the operation inside its document. */
  pointer: string;
  operation: Record<string, any>;
  pathItem: Record<string, any>;
}

/** JSON pointer escaping (RFC 6901). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Every operation of `doc`, keyed by operationId. */
export function listOperations(doc: OpenApiDocument): Map<string, OperationSpec> {
  const operations = new Map<string, OperationSpec>();
  for (const [path, pathItem] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const operationId: string = operation.operationId;
      if (!operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      operations.set(operationId, {
        operationId,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ":$1"),
        scope: "x-scope" in operation ? operation["x-scope"] : undefined,
        rateClass: operation["x-rate-class"],
        pointer: `#/paths/${escapePointer(path)}/${method}`,
        operation,
        pathItem,
      });
    }
  }
  return operations;
}
