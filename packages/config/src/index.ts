export { loadConfig, ConfigError, type Config } from "./load-config";
export { renderConfigurationReference } from "./reference";

import { type Config, loadConfig } from "./load-config";

/** The configuration of this process, from its environment: the one read of `process.env`. */
export function loadProcessConfig(): Config {
  return loadConfig(process.env);
}
