/** True when `error` is PostgreSQL's unique_violation (SQLSTATE 23505), optionally on one constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" && (constraint === undefined || violated === constraint);
}

/** A Node system error (ECONNREFUSED, EPIPE…): its `code` is no SQLSTATE, though EPIPE has five letters too. */
const isSystemError = (error: object) => "errno" in error || "syscall" in error;

/** PostgreSQL's SQLSTATE carried by `error`, or null when it carries none. */
export function sqlState(error: unknown): string | null {
  if (error === null || typeof error !== "object" || isSystemError(error)) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * node-postgres's own errors for a connection that failed or ended under a query. They carry
 * no code, so their fixed messages are all there is to recognise them by.
 */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/**
 * True when `error` says the database could not be reached, or dropped the connection, rather
 * than refused the statement: SQLSTATE class 08 (connection exception), 57P01–57P03 (shut down
 * by an operator, a crash or a start-up), 53300 (too many connections), node-postgres's lost
 * connection, or a Node system error (ECONNREFUSED, ECONNRESET…). The same request may succeed
 * once the database is back.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  if (isSystemError(error)) return true;
  const code = sqlState(error);
  if (code !== null) return code.startsWith("08") || /^57P0[123]$/.test(code) || code === "53300";
  return error instanceof Error && CONNECTION_LOST.test(error.message);
}
