import type { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { Client } from "minio";
import type { BlobStore } from "./blob-store";

export interface S3Settings {
  endpoint: string;
  accessKey: string | null;
  secretKey: string | null;
  bucket: string;
  region: string;
}

const NOT_FOUND = new Set(["NoSuchKey", "NotFound", "NoSuchObject"]);

function isNotFound(error: unknown): boolean {
  return NOT_FOUND.has(String((error as { code?: unknown }).code));
}

function unavailable(action: string, error: unknown): MailstopError {
  return new MailstopError("storage_unavailable", `The object store could not ${action}; retry shortly.`, { cause: error });
}

/**
 * The whole body as one buffer. minio reads any object up to its part size (64 MiB) into
 * memory before sending it anyway, and for a stream of unknown length it starts a multipart
 * upload (three requests or more, and not implemented by every S3 server). mailstop's objects
 * are bounded by MAILSTOP_MAX_MESSAGE_BYTES, so one PUT with a known length is both cheaper and
 * no larger in memory.
 */
async function bufferOf(body: Readable | Buffer): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The BlobStore over any S3 server (MinIO, AWS S3, R2, s3rver) through the minio client. */
export class S3BlobStore implements BlobStore {
  private readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;

  constructor(settings: S3Settings) {
    const url = new URL(settings.endpoint);
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port === "" ? undefined : Number(url.port),
      useSSL: url.protocol === "https:",
      accessKey: settings.accessKey ?? "",
      secretKey: settings.secretKey ?? "",
      region: settings.region,
      // Path-style addressing works with every S3 server; virtual hosts need DNS per bucket.
      pathStyle: true,
    });
    this.bucket = settings.bucket;
    this.region = settings.region;
  }

  async ensureReady(): Promise<void> {
    try {
      if (!(await this.client.bucketExists(this.bucket))) await this.client.makeBucket(this.bucket, this.region);
    } catch (error) {
      // Two instances creating the bucket at once: the loser's error means it exists now.
      if ((error as { code?: unknown }).code === "BucketAlreadyOwnedByYou") return;
      throw unavailable(`create bucket ${this.bucket}`, error);
    }
  }

  async put(key: string, body: Readable | Buffer, options: { contentType?: string } = {}): Promise<{ size: number }> {
    const bytes = await bufferOf(body);
    try {
      await this.client.putObject(this.bucket, key, bytes, bytes.length, { "Content-Type": options.contentType ?? "application/octet-stream" });
    } catch (error) {
      throw unavailable("store an object", error);
    }
    return { size: bytes.length };
  }

  async copy(source: string, target: string): Promise<void> {
    try {
      await this.client.copyObject(this.bucket, target, `/${this.bucket}/${source}`);
    } catch (error) {
      throw unavailable("copy an object", error);
    }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      return await this.client.getObject(this.bucket, key);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw unavailable("read an object", error);
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      return { size: (await this.client.statObject(this.bucket, key)).size };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw unavailable("read an object", error);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = [];
    try {
      for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
        if (item.name) keys.push(item.name);
      }
    } catch (error) {
      throw unavailable("list objects", error);
    }
    await this.delete(keys);
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.client.removeObjects(this.bucket, [...keys]);
    } catch (error) {
      throw unavailable("delete objects", error);
    }
  }

  async presignGet(key: string, ttlSeconds: number, options: { filename?: string; contentType?: string } = {}): Promise<string> {
    const headers: Record<string, string> = {};
    if (options.contentType) headers["response-content-type"] = options.contentType;
    if (options.filename) headers["response-content-disposition"] = `attachment; filename*=UTF-8''${encodeURIComponent(options.filename)}`;
    try {
      return await this.client.presignedGetObject(this.bucket, key, ttlSeconds, headers);
    } catch (error) {
      throw unavailable("sign a download", error);
    }
  }
}
