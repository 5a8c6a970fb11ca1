import { setMaxListeners } from "node:events";
import { waiterHttpContributions } from "@mailstop/api";
import { type RuntimeContext, type ServiceModule, requireDb, requireMessaging } from "../module";

/** The waiter service: blocking waits and event streams on the HTTP listener, fed by the arrival bus. */
export function waiterModule(context: RuntimeContext): ServiceModule {
  const messaging = requireMessaging(context);
  const shutdown = new AbortController();
  // Every held wait and open stream listens for the shutdown: thousands, by design.
  setMaxListeners(0, shutdown.signal);
  context.http.push(
    ...waiterHttpContributions({
      db: requireDb(context),
      config: context.config,
      logger: context.logger,
      blobs: context.blobs ?? null,
      bus: messaging.bus,
      slots: messaging.slots,
      shutdown: shutdown.signal,
    }),
  );
  return {
    name: "waiter",
    start: async () => undefined,
    drain: async () => shutdown.abort(),
    stop: async () => undefined,
    ready: async () => true,
  };
}
