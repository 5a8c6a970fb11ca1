import { defineModule } from "../module";

/** The smtp-edge service: receiving edge and capture relay. Ready while it accepts mail. */
export const smtpEdgeModule = defineModule({
  name: "smtp-edge",
  needs: ["db", "blobs", "messaging"],
  provides: ["smtpPorts"],
  create({ db, blobs, messaging, config, logger, metrics }) {
    // Required here, not imported: a target loads the services it runs only (see targets.ts).
    const { AcceptLedger, createSmtpEdge, hasRoomFor } = require("@mailstop/smtp-edge") as typeof import("@mailstop/smtp-edge");
    // PGlite or the directory object store under MAILSTOP_DATA_DIR: mail must not fill that disk.
    const usesDataDir = config.databaseUrl === null || config.s3 === null;
    const disk = usesDataDir ? { path: config.dataDir, minFreeBytes: config.minFreeDiskBytes } : undefined;
    const edge = createSmtpEdge({ db, blobs, queue: messaging.queue, ledger: new AcceptLedger(db), greylist: messaging.greylist, config, logger, metrics, ...(disk ? { disk } : {}) });
    let listening = false;
    return {
      async start() {
        await edge.start();
        listening = true;
        return { smtpPorts: edge.ports() };
      },
      drain: async () => {
        // Refusing new mail (421) from here on: no longer ready.
        listening = false;
        edge.drain();
      },
      stop: async () => {
        listening = false;
        await edge.stop();
      },
      // Not ready while mail would be refused for want of disk (/ready names smtp-edge); reads go on.
      ready: async () => listening && hasRoomFor(disk, 0),
    };
  },
});
