export { createLogger, resolveLogFormat, REDACTED_PATHS, type LogFormat, type Logger } from "./logger";
