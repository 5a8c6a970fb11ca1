import { AcceptLedger, createSmtpEdge } from "@mailstop/smtp-edge";
import { defineModule } from "../module";

/** The smtp-edge service: receiving edge and capture relay. */
export const smtpEdgeModule = defineModule({
  name: "smtp-edge",
  needs: ["db", "blobs", "messaging"],
  provides: ["smtpPorts"],
  create({ db, blobs, messaging, config, logger }) {
    const edge = createSmtpEdge({ db, blobs, queue: messaging.queue, ledger: new AcceptLedger(db), greylist: messaging.greylist, config, logger });
    let listening = false;
    return {
      async start() {
        await edge.start();
        listening = true;
        return { smtpPorts: edge.ports() };
      },
      drain: async () => edge.drain(),
      stop: () => edge.stop(),
      ready: async () => listening,
    };
  },
});
