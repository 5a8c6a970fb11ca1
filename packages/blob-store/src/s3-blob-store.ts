import type { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import type { Client } from "minio";
import { type BlobStore, storageUnavailable } from "./blob-store";
import { attachmentDisposition } from "./content-disposition";

export interface S3Settings {
  endpoint: string;
  /** The endpoint as clients reach it, for presigned URLs; null: `endpoint`. */
  publicEndpoint?: string | null;
  accessKey: string | null;
  secretKey: string | null;
  bucket: string;
  region: string;
}

const NOT_FOUND = new Set(["NoSuchKey", "NotFound", "NoSuchObject"]);

function isNotFound(error: unknown): boolean {
  return NOT_FOUND.has(String((error as { code?: unknown }).code));
}

/** S3's smallest part (all but the last); also the most this adapter holds of one body. */
export const PART_BYTES = 5 * 1024 * 1024;

/**
 * Cuts a stream into parts of exactly PART_BYTES (the last one shorter), holding at most one
 * part in memory. Written here because minio, for a stream, either reads up to 64 MiB into
 * memory or starts with a ListMultipartUploads call that not every S3 server implements.
 */
async function* partsOf(body: Readable): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const raw of body) {
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as string);
    while (pendingBytes + chunk.length >= PART_BYTES) {
      const take = PART_BYTES - pendingBytes;
      pending.push(chunk.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      chunk = chunk.subarray(take);
    }
    if (chunk.length > 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
    }
  }
  if (pendingBytes > 0 || pending.length === 0) yield Buffer.concat(pending);
}

/** The BlobStore over any S3 server (MinIO, AWS S3, R2, s3rver) through the minio client. */
export class S3BlobStore implements BlobStore {
  private readonly client: Client;
  /** Signs download URLs for the endpoint clients reach (signing needs no request: the region is set). */
  private readonly signer: Client;
  private readonly bucket: string;
  private readonly region: string;

  constructor(settings: S3Settings) {
    // Required here: a process on the directory store never loads minio and its dependencies
    // (≈ 6 MB of its memory).
    const { Client } = require("minio") as typeof import("minio");
    const clientFor = (endpoint: string) => {
      const url = new URL(endpoint);
      return new Client({
        endPoint: url.hostname,
        port: url.port === "" ? undefined : Number(url.port),
        useSSL: url.protocol === "https:",
        accessKey: settings.accessKey ?? "",
        secretKey: settings.secretKey ?? "",
        region: settings.region,
        // Path-style addressing works with every S3 server; virtual hosts need DNS per bucket.
        pathStyle: true,
      });
    };
    this.client = clientFor(settings.endpoint);
    this.signer = settings.publicEndpoint ? clientFor(settings.publicEndpoint) : this.client;
    this.bucket = settings.bucket;
    this.region = settings.region;
  }

  async ensureReady(): Promise<void> {
    try {
      if (!(await this.client.bucketExists(this.bucket))) await this.client.makeBucket(this.bucket, this.region);
    } catch (error) {
      // Several instances creating the bucket at once: the losers' errors (BucketAlreadyOwnedByYou
      // on S3 and MinIO, BucketAlreadyExists on s3rver) mean it exists now, which is checked
      // rather than assumed (on AWS, BucketAlreadyExists can also mean another account's bucket).
      if (await this.client.bucketExists(this.bucket).catch(() => false)) return;
      throw storageUnavailable(`create bucket ${this.bucket}`, error);
    }
  }

  /**
   * One PUT with a known length for a buffer or a stream that fits in one part (nearly all
   * mail); a larger stream goes up as a multipart upload, one part in memory at a time.
   */
  async put(key: string, body: Readable | Buffer, options: { contentType?: string } = {}): Promise<{ size: number }> {
    const contentType = options.contentType ?? "application/octet-stream";
    if (Buffer.isBuffer(body)) return this.putOnce(key, body, contentType);
    const parts = partsOf(body);
    const first = (await parts.next()).value as Buffer;
    if (first.length < PART_BYTES) return this.putOnce(key, first, contentType);
    return this.putInParts(key, first, parts, contentType);
  }

  private async putOnce(key: string, bytes: Buffer, contentType: string): Promise<{ size: number }> {
    try {
      await this.client.putObject(this.bucket, key, bytes, bytes.length, { "Content-Type": contentType });
    } catch (error) {
      throw storageUnavailable("store an object", error);
    }
    return { size: bytes.length };
  }

  private async putInParts(key: string, first: Buffer, rest: AsyncGenerator<Buffer>, contentType: string): Promise<{ size: number }> {
    let uploadId: string | undefined;
    try {
      uploadId = await this.client.initiateNewMultipartUpload(this.bucket, key, { "Content-Type": contentType });
      const etags: { part: number; etag: string }[] = [];
      let size = 0;
      let part: Buffer | undefined = first;
      for (let number = 1; part !== undefined && part.length > 0; number++) {
        const { etag } = await this.client.uploadPart({ bucketName: this.bucket, objectName: key, uploadID: uploadId, partNumber: number, headers: {} }, part);
        etags.push({ part: number, etag });
        size += part.length;
        part = (await rest.next()).value as Buffer | undefined;
      }
      await this.client.completeMultipartUpload(this.bucket, key, uploadId, etags);
      return { size };
    } catch (error) {
      if (uploadId !== undefined) await this.client.abortMultipartUpload(this.bucket, key, uploadId).catch(() => undefined);
      if (error instanceof MailstopError) throw error;
      throw storageUnavailable("store an object", error);
    }
  }

  async copy(source: string, target: string): Promise<void> {
    try {
      await this.client.copyObject(this.bucket, target, `/${this.bucket}/${source}`);
    } catch (error) {
      throw storageUnavailable("copy an object", error);
    }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      return await this.client.getObject(this.bucket, key);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw storageUnavailable("read an object", error);
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      return { size: (await this.client.statObject(this.bucket, key)).size };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw storageUnavailable("read an object", error);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = [];
    try {
      for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
        if (item.name) keys.push(item.name);
      }
    } catch (error) {
      throw storageUnavailable("list objects", error);
    }
    await this.delete(keys);
  }

  async *listPrefixes(prefix: string): AsyncIterable<string> {
    try {
      // Not recursive: S3 answers the common prefixes under the delimiter `/`, not the objects in them.
      for await (const item of this.client.listObjectsV2(this.bucket, prefix, false)) {
        if (item.prefix) yield item.prefix;
      }
    } catch (error) {
      throw storageUnavailable("list objects", error);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    let failures: unknown[];
    try {
      // minio reports per-key failures in the result (quiet mode), not by throwing.
      failures = (await this.client.removeObjects(this.bucket, [...keys])).filter((entry) => entry && "Error" in entry);
    } catch (error) {
      throw storageUnavailable("delete objects", error);
    }
    if (failures.length > 0) throw storageUnavailable("delete objects", failures);
  }

  async presignGet(key: string, ttlSeconds: number, options: { filename?: string; contentType?: string } = {}): Promise<string> {
    const headers: Record<string, string> = {};
    if (options.contentType) headers["response-content-type"] = options.contentType;
    if (options.filename) headers["response-content-disposition"] = attachmentDisposition(options.filename);
    try {
      return await this.signer.presignedGetObject(this.bucket, key, ttlSeconds, headers);
    } catch (error) {
      throw storageUnavailable("sign a download", error);
    }
  }
}
