export { loadConfig, ConfigError, type Config } from "./load-config";
export { renderConfigurationReference } from "./reference";
