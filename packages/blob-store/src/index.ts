export type { BlobStore } from "./blob-store";
export { blobKeys } from "./blob-keys";
export { S3BlobStore, PART_BYTES, type S3Settings } from "./s3-blob-store";
