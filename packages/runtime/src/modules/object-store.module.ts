import { join } from "node:path";
import { type BlobStore, DirectoryBlobStore, S3BlobStore, loadOrCreateSigningKey } from "@mailstop/blob-store";
import { publicDocument } from "@mailstop/openapi";
import { defineModule } from "../module";

/**
 * The S3 object store (bucket created on start when missing), or, for the monolith without
 * S3_ENDPOINT, a directory under MAILSTOP_DATA_DIR whose download URLs mailstop signs and
 * serves itself.
 */
export const objectStoreModule = defineModule({
  name: "object-store",
  needs: [],
  provides: ["blobs", "downloadRoutes"],
  create({ config }) {
    let blobs: BlobStore | undefined;
    return {
      async start() {
        const { s3, dataDir, http } = config;
        if (s3 !== null) {
          blobs = new S3BlobStore(s3);
          await blobs.ensureReady();
          return { blobs, downloadRoutes: [] };
        }
        const directory = new DirectoryBlobStore({ root: join(dataDir, "objects"), publicUrl: http.publicUrl, signingKey: loadOrCreateSigningKey(dataDir) });
        blobs = directory;
        // Required here, not imported: a target loads the services it runs only (see targets.ts).
        const { mountSignedDownloads } = require("@mailstop/api") as typeof import("@mailstop/api");
        await directory.ensureReady();
        return { blobs, downloadRoutes: [{ document: publicDocument(), routes: [], setup: (app) => mountSignedDownloads(app, directory) }] };
      },
      stop: async () => undefined,
      ready: async () =>
        blobs !== undefined &&
        blobs.stat(".ready-probe").then(
          () => true,
          () => false,
        ),
    };
  },
});
