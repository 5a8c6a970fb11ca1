import { webhookTargets } from "./webhook-targets";
import { defineModule } from "../module";

/** The api service: its routes join the process's HTTP listener. */
export const apiModule = defineModule({
  name: "api",
  // The bus: the admin routes announce revoked keys and changed limits to every instance.
  needs: ["db", "secrets", "messaging"],
  // Run without one when the target is given no S3_ENDPOINT: reads of stored bodies answer 503.
  optional: ["blobs"],
  provides: ["apiRoutes"],
  create({ db, blobs, secrets, messaging, config, logger }) {
    const targets = webhookTargets(config);
    return {
      async start() {
        // Required here, not imported: a target loads the services it runs only (see targets.ts).
        const { ArticleLibrary, BUNDLED_ARTICLES_DIR, apiHttpContributions } = require("@mailstop/api") as typeof import("@mailstop/api");
        // Read on the first request, not per request; the library looks for edits itself (at most every 10 s).
        const articles = ArticleLibrary.open({ dir: config.contentDir ?? BUNDLED_ARTICLES_DIR, logger });
        return { apiRoutes: apiHttpContributions({ db, blobs, bus: messaging.bus, config, logger, webhooks: { secrets, targets, queue: messaging.queue }, articles }) };
      },
      stop: async () => undefined,
      ready: async () => true,
    };
  },
});
