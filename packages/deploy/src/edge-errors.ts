import { ERROR_TABLE, type ErrorCode } from "@mailstop/core";

/**
 * The answers the HTTP edge makes itself, without a mailstop service: a body over its size
 * limit, no service to pass the request to, a service that does not answer in time. nginx
 * would answer them with an HTML page; a client of mailstop expects its error envelope
 * (docs/api.md "Errors") on every failure, so each edge (the nginx of compose and `pnpm fleet`,
 * the Kubernetes Ingress) answers them with these bodies. An answer a service makes (the api's
 * own 413 or 503) passes through the edge untouched.
 *
 * The closed set of codes has none for a gateway, so the edge's 502, 503 and 504 carry
 * `internal` (retryable, as the table says) and keep their HTTP status, which HTTP clients and
 * load balancers already retry on (docs/decisions.md, "The edge's own answers").
 */
export interface EdgeError {
  status: 413 | 502 | 503 | 504;
  code: ErrorCode;
  reason: string;
}

/** The edge's body size limit, above the api's largest JSON body (1 MB), so the api's own 413 answers first. */
export const CLIENT_MAX_BODY = "8m";

export const EDGE_ERRORS: readonly EdgeError[] = [
  { status: 413, code: "payload_too_large", reason: `The request body is over the size limit of the edge (${CLIENT_MAX_BODY.replace("m", " MB")}).` },
  { status: 502, code: "internal", reason: "The edge could not reach a mailstop service for this route; retry shortly." },
  { status: 503, code: "internal", reason: "No mailstop service for this route can take the request now; retry shortly." },
  { status: 504, code: "internal", reason: "The mailstop service for this route did not answer in time; retry shortly." },
];

/**
 * The envelope of one edge answer. `details.source` says the edge answered, not a service: a
 * 502 through the edge and a 500 from the api carry the same code.
 */
export function edgeErrorBody(error: EdgeError): string {
  return JSON.stringify({ error: { code: error.code, reason: error.reason, retryable: ERROR_TABLE[error.code].retryable, details: { source: "edge" } } });
}
