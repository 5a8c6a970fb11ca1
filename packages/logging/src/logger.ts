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

/** `json`: one JSON object a line, for machines; `pretty`: coloured lines for a person; `auto`: pretty on a terminal. */
export type LogFormat = "auto" | "pretty" | "json";

/** The format `format` means on an output that is (or is not) a terminal. */
export function resolveLogFormat(format: LogFormat, isTerminal: boolean): "pretty" | "json" {
  return format === "auto" ? (isTerminal ? "pretty" : "json") : format;
}

/**
 * Human lines: time, level, message, then the fields. pino-pretty as a stream in this
 * process (synchronous), not as pino's worker-thread transport: the lines stay in order with
 * what the process prints on stdout itself (first-start credentials), and none is lost when
 * the process exits right after a stop. Pretty output is for a person at a terminal, where
 * that cost does not matter; machines get JSON.
 */
function prettyStream(destination: DestinationStream | undefined, colorize: boolean): DestinationStream {
  // Required here: a process logging JSON (every server, the image) never loads pino-pretty.
  const pretty = require("pino-pretty") as typeof import("pino-pretty");
  return pretty({
    colorize,
    sync: true,
    // One line a record: a person scans time, level and message; the fields follow on the same line.
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
    ...(destination === undefined ? {} : { destination: destination as NodeJS.WritableStream }),
  });
}

/**
 * The process logger: JSON lines (pino) on stdout unless a destination is given; with
 * `format` `pretty` (or `auto` on a terminal, the default when logging to stdout), coloured
 * lines for a person. A given destination is JSON unless `format` forces pretty.
 */
export function createLogger(options: { level: string; name?: string; destination?: DestinationStream; format?: LogFormat }): Logger {
  const isTerminal = options.destination === undefined && process.stdout.isTTY === true;
  const format = resolveLogFormat(options.format ?? (options.destination === undefined ? "auto" : "json"), isTerminal);
  const destination = format === "pretty" ? prettyStream(options.destination, isTerminal) : options.destination;
  return pino(
    {
      level: options.level,
      ...(options.name === undefined ? {} : { name: options.name }),
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * Writes a JSON log line another logger made (the monolith's parser thread's) to `logger`'s
 * own destination, unchanged: it keeps its time, level and fields, and a pretty destination
 * formats it like the rest.
 */
export function writeLogLine(logger: Logger, line: string): void {
  (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!.write(line);
}
