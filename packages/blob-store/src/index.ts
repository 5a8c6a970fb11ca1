export type { BlobStore } from "./blob-store";
export { blobKeys } from "./blob-keys";
export { S3BlobStore, PART_BYTES, type S3Settings } from "./s3-blob-store";
export { DirectoryBlobStore, SIGNED_DOWNLOAD_PATH, loadOrCreateSigningKey, type DirectorySettings, type SignedDownload } from "./directory-blob-store";
export { attachmentDisposition } from "./content-disposition";
