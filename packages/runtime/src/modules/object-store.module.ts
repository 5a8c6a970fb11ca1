import { S3BlobStore } from "@mailstop/blob-store";
import type { RuntimeContext, ServiceModule } from "../module";

/** The S3 object store; the bucket is created on start when missing. */
export function objectStoreModule(context: RuntimeContext): ServiceModule {
  const s3 = context.config.s3;
  // TODO(#5): the monolithic target stores objects in a directory when S3_ENDPOINT is unset.
  if (s3 === null) throw new Error("S3_ENDPOINT is not set: storing mail needs an S3-compatible object store (MinIO, S3, R2).");
  const blobs = new S3BlobStore(s3);
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
