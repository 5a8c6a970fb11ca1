import { RETENTION_SECONDS } from "@mailstop/core";
import { type ApiDeps, publicRoute } from "../../deps";

/**
 * GET /v1/retention: the retention rules as this server applies them. The bounds come from the
 * same constants that validate `retention_seconds`, the interval from the reaper's own setting.
 */
export const getRetentionRoute = ({ config }: ApiDeps) => {
  const body = {
    default_retention_seconds: RETENTION_SECONDS.default,
    min_retention_seconds: RETENTION_SECONDS.min,
    max_retention_seconds: RETENTION_SECONDS.max,
    reaper_interval_seconds: config.reapIntervalSeconds,
  };
  return publicRoute("getRetention", async () => ({ status: 200, body }));
};
