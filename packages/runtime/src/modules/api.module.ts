import { apiHttpContributions } from "@mailstop/api";
import { type RuntimeContext, type ServiceModule, requireDb } from "../module";

/** The api service: its routes join the process's HTTP listener. */
export function apiModule(context: RuntimeContext): ServiceModule {
  context.http.push(...apiHttpContributions({ db: requireDb(context), config: context.config, logger: context.logger, blobs: context.blobs ?? null }));
  return { name: "api", start: async () => undefined, stop: async () => undefined, ready: async () => true };
}
