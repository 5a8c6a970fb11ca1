import { waiterHttpContributions } from "@mailstop/api";
import { type RuntimeContext, type ServiceModule, requireDb, requireMessaging } from "../module";

/** The waiter service: blocking waits and event streams on the HTTP listener, fed by the arrival bus. */
export function waiterModule(context: RuntimeContext): ServiceModule {
  const messaging = requireMessaging(context);
  const shutdown = new AbortController();
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
