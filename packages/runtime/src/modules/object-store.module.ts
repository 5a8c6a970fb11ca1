import { join } from "node:path";
import { type BlobStore, DirectoryBlobStore, S3BlobStore, loadOrCreateSigningKey } from "@mailstop/blob-store";
import { mountSignedDownloads } from "@mailstop/api";
import { publicDocument } from "@mailstop/openapi";
import type { RuntimeContext, ServiceModule } from "../module";

/**
 * The S3 object store (bucket created on start when missing), or, for the monolith without
 * S3_ENDPOINT, a directory under MAILSTOP_DATA_DIR whose download URLs mailstop signs and
 * serves itself.
 */
export function objectStoreModule(context: RuntimeContext): ServiceModule {
  const { s3, dataDir, http } = context.config;
  let blobs: BlobStore;
  if (s3 === null) {
    const directory = new DirectoryBlobStore({ root: join(dataDir, "objects"), publicUrl: http.publicUrl, signingKey: loadOrCreateSigningKey(dataDir) });
    context.http.push({ document: publicDocument(), routes: [], setup: (app) => mountSignedDownloads(app, directory) });
    blobs = directory;
  } else {
    blobs = new S3BlobStore(s3);
  }
  context.blobs = blobs;
  return {
    name: "object-store",
    start: () => blobs.ensureReady(),
    stop: async () => undefined,
    ready: () =>
      blobs.stat(".ready-probe").then(
        () => true,
        () => false,
      ),
  };
}
