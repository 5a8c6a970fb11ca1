import { defineModule } from "../module";

/** The waiter service: blocking waits and event streams on the HTTP listener, fed by the arrival bus. */
export const waiterModule = defineModule({
  name: "waiter",
  needs: ["db", "messaging"],
  // Run without one when the target is given no S3_ENDPOINT: reads of stored bodies answer 503.
  optional: ["blobs"],
  provides: ["waiterRoutes"],
  create({ db, messaging, blobs, config, logger, metrics }) {
    // Required here, and this file of the api package only: a target loads the services it runs only (see targets.ts).
    const { waiterHttpContributions } = require("@mailstop/api/src/waiter.routes") as typeof import("@mailstop/api/src/waiter.routes");
    const shutdown = new AbortController();
    const waiterRoutes = waiterHttpContributions({ db, config, logger, blobs, bus: messaging.bus, slots: messaging.slots, shutdown: shutdown.signal, metrics });
    return {
      start: async () => ({ waiterRoutes }),
      drain: async () => shutdown.abort(),
      stop: async () => undefined,
      ready: async () => true,
    };
  },
});
