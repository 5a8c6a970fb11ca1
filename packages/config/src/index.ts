export { loadConfig, ConfigError, type Config } from "./load-config";
export { PARSER_CHECKS, type ParserCheck } from "./validators";
export { renderConfigurationReference } from "./reference";
export { loadClientConfig, type ClientConfig } from "./client-config";

import { type ClientConfig, loadClientConfig } from "./client-config";
import { type Config, loadConfig } from "./load-config";

/** The configuration of this process, from its environment: the one read of `process.env`. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env);
}

/** The client commands' configuration (MAILSTOP_API_URL, MAILSTOP_API_KEY) of this process. */
export function loadProcessClientConfig(): ClientConfig {
  return loadClientConfig(process.env);
}
