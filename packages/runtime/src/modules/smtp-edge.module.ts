import { AcceptLedger, createSmtpEdge } from "@mailstop/smtp-edge";
import { type RuntimeContext, type ServiceModule, requireBlobs, requireDb, requireMessaging } from "../module";

/** The smtp-edge service: receiving edge and capture relay. */
export function smtpEdgeModule(context: RuntimeContext): ServiceModule {
  const messaging = requireMessaging(context);
  const db = requireDb(context);
  const edge = createSmtpEdge({
    db,
    blobs: requireBlobs(context),
    queue: messaging.queue,
    ledger: new AcceptLedger(db),
    greylist: messaging.greylist,
    config: context.config,
    logger: context.logger,
  });
  return {
    name: "smtp-edge",
    async start() {
      await edge.start();
      context.smtpPorts = edge.ports();
    },
    drain: async () => edge.drain(),
    stop: () => edge.stop(),
    ready: async () => context.smtpPorts !== undefined,
  };
}
