import { apiHttpContributions } from "@mailstop/api";
import { webhookTargets } from "./webhook-targets";
import { defineModule } from "../module";

/** The api service: its routes join the process's HTTP listener. */
export const apiModule = defineModule({
  name: "api",
  needs: ["db", "secrets"],
  // Run without one when the target is given no S3_ENDPOINT: reads of stored bodies answer 503.
  optional: ["blobs"],
  provides: ["apiRoutes"],
  create({ db, blobs, secrets, config, logger }) {
    const targets = webhookTargets(config);
    const apiRoutes = apiHttpContributions({ db, blobs, config, logger, webhooks: { secrets, targets } });
    return { start: async () => ({ apiRoutes }), stop: async () => undefined, ready: async () => true };
  },
});
