import { apiHttpContributions } from "@mailstop/api";
import { defineModule } from "../module";

/** The api service: its routes join the process's HTTP listener. */
export const apiModule = defineModule({
  name: "api",
  needs: ["db"],
  // Run without one when the target is given no S3_ENDPOINT: reads of stored bodies answer 503.
  optional: ["blobs"],
  provides: ["apiRoutes"],
  create({ db, blobs, config, logger }) {
    const apiRoutes = apiHttpContributions({ db, blobs, config, logger });
    return { start: async () => ({ apiRoutes }), stop: async () => undefined, ready: async () => true };
  },
});
