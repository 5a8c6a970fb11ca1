export { createLogger, resolveLogFormat, writeLogLine, REDACTED_PATHS, type LogFormat, type Logger } from "./logger";
