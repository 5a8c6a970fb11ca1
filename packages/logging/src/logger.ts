import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/**
 * Paths censored in every log line, as a second line of defence: call sites log ids, never
 * secrets or message bodies, but an error object carrying a request must not leak one either.
 */
export const REDACTED_PATHS = [
  "authorization",
  "password",
  "api_key",
  "token",
  "key",
  "body",
  "*.authorization",
  "*.password",
  "*.api_key",
  "*.token",
  "*.key",
  "*.body",
  "req.headers.authorization",
  "req.headers.cookie",
  "smtp.password",
];

/** The process logger: JSON lines (pino) on stdout unless a destination is given. */
export function createLogger(options: { level: string; name?: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      ...(options.name === undefined ? {} : { name: options.name }),
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
