import type { Config } from "@mailstop/config";
import { TargetGuard } from "@mailstop/webhooks";

/** What webhooks may reach under `config`: checked by the api when an endpoint is saved, and by the parser at every attempt. */
export function webhookTargets(config: Config): TargetGuard {
  return TargetGuard.forSettings({ environment: config.environment, allowNetworks: config.webhooks.allowNetworks, dnsServers: config.dnsServers });
}
