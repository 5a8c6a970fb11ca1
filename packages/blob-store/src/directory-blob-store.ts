import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, link, mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { Readable } from "node:stream";
import { MailstopError, loadOrCreateKeyFile } from "@mailstop/core";
import { type BlobStore, storageUnavailable } from "./blob-store";

export interface DirectorySettings {
  /** Where the objects live; a key `a/b/c` is the file `<root>/a/b/c`. */
  root: string;
  /** The origin of the HTTP listener that serves signed downloads (MAILSTOP_PUBLIC_URL). */
  publicUrl: string;
  /** The HMAC key of download URLs. */
  signingKey: Buffer;
}

/** The path signed downloads are served under. */
export const SIGNED_DOWNLOAD_PATH = "/blobs/";

/** What a valid signed download URL grants. */
export interface SignedDownload {
  key: string;
  filename: string | null;
  contentType: string | null;
}

const isMissing = (error: unknown) => (error as { code?: unknown }).code === "ENOENT";

/**
 * The key of the download signing secret, kept in the data directory so download URLs stay
 * valid across restarts.
 */
export function loadOrCreateSigningKey(dataDir: string): Buffer {
  return loadOrCreateKeyFile(dataDir, "download-signing.key");
}

/**
 * The BlobStore of the monolith without S3: one file per object under a directory. A put is
 * written to a temporary file, fsynced and renamed into place, so a reader never sees half an
 * object and a stored object survives a crash. Downloads are URLs this process signs (HMAC-SHA256
 * over key, expiry and response headers) and serves itself under SIGNED_DOWNLOAD_PATH.
 */
export class DirectoryBlobStore implements BlobStore {
  constructor(private readonly settings: DirectorySettings) {}

  /** The file of `key`; keys are ours, but a key that could leave the root is refused all the same. */
  private path(key: string): string {
    const segments = key.split("/");
    if (key.length === 0 || segments.some((segment) => segment === "" || segment === "." || segment === ".." || segment.includes(sep) || segment.includes("\0"))) {
      throw new MailstopError("invalid_request", `Not an object key: ${JSON.stringify(key)}.`);
    }
    return join(this.settings.root, ...segments);
  }

  async ensureReady(): Promise<void> {
    try {
      await mkdir(this.settings.root, { recursive: true });
    } catch (error) {
      throw storageUnavailable(`create ${this.settings.root}`, error);
    }
  }

  async put(key: string, body: Readable | Buffer, _options: { contentType?: string } = {}): Promise<{ size: number }> {
    const target = this.path(key);
    const temporary = `${target}.${randomBytes(6).toString("hex")}.partial`;
    let size = 0;
    try {
      await mkdir(dirname(target), { recursive: true });
      const file = await open(temporary, "w");
      try {
        const chunks: Iterable<Buffer> | AsyncIterable<Buffer | string> = Buffer.isBuffer(body) ? [body] : body;
        for await (const chunk of chunks) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
          await file.write(bytes);
          size += bytes.length;
        }
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      if (error instanceof MailstopError) throw error;
      throw storageUnavailable("store an object", error);
    }
    return { size };
  }

  async copy(source: string, target: string): Promise<void> {
    const from = this.path(source);
    const to = this.path(target);
    try {
      await mkdir(dirname(to), { recursive: true });
      await rm(to, { force: true });
      // Objects are never modified in place (a put renames a new file over the key), so a hard
      // link is a safe copy; a file system without links gets a real copy.
      await link(from, to).catch(() => copyFile(from, to));
    } catch (error) {
      throw storageUnavailable("copy an object", error);
    }
  }

  async get(key: string): Promise<Readable | null> {
    const path = this.path(key);
    try {
      // Open before returning, so a missing object is null here rather than a stream error later.
      const file = await open(path, "r");
      return file.createReadStream();
    } catch (error) {
      if (isMissing(error)) return null;
      throw storageUnavailable("read an object", error);
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      return { size: (await stat(this.path(key))).size };
    } catch (error) {
      if (isMissing(error)) return null;
      throw storageUnavailable("read an object", error);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith("/")) throw new MailstopError("invalid_request", `Not a prefix: ${JSON.stringify(prefix)}.`);
    try {
      await rm(this.path(prefix.slice(0, -1)), { recursive: true, force: true });
    } catch (error) {
      throw storageUnavailable("delete objects", error);
    }
  }

  async *listPrefixes(prefix: string): AsyncIterable<string> {
    if (!prefix.endsWith("/")) throw new MailstopError("invalid_request", `Not a prefix: ${JSON.stringify(prefix)}.`);
    let entries: { name: string; isDirectory(): boolean }[];
    try {
      entries = await readdir(this.path(prefix.slice(0, -1)), { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw storageUnavailable("list objects", error);
    }
    // Temporary files of puts in flight are files, never folders.
    for (const name of entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) yield `${prefix}${name}/`;
  }

  async delete(keys: readonly string[]): Promise<void> {
    try {
      await Promise.all(keys.map((key) => unlink(this.path(key)).catch((error) => (isMissing(error) ? undefined : Promise.reject(error)))));
    } catch (error) {
      throw storageUnavailable("delete objects", error);
    }
  }

  async presignGet(key: string, ttlSeconds: number, options: { filename?: string; contentType?: string } = {}): Promise<string> {
    this.path(key);
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const grant: SignedDownload = { key, filename: options.filename ?? null, contentType: options.contentType ?? null };
    const query = new URLSearchParams({ expires: String(expires) });
    if (grant.filename !== null) query.set("filename", grant.filename);
    if (grant.contentType !== null) query.set("content_type", grant.contentType);
    query.set("signature", this.sign(grant, expires));
    const path = key.split("/").map(encodeURIComponent).join("/");
    return `${this.settings.publicUrl}${SIGNED_DOWNLOAD_PATH}${path}?${query.toString()}`;
  }

  /**
   * What a download request may fetch, or why not: `expired` past its expiry, `invalid` when the
   * signature does not cover exactly this key, expiry and these response headers.
   */
  verifyDownload(key: string, query: Record<string, unknown>, now = Date.now()): SignedDownload | "expired" | "invalid" {
    const text = (name: string) => (typeof query[name] === "string" ? (query[name] as string) : null);
    const expires = Number(text("expires"));
    const signature = text("signature");
    if (!Number.isSafeInteger(expires) || signature === null) return "invalid";
    const grant: SignedDownload = { key, filename: text("filename"), contentType: text("content_type") };
    const expected = Buffer.from(this.sign(grant, expires), "hex");
    const given = Buffer.from(signature, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
    if (now / 1000 > expires) return "expired";
    return grant;
  }

  private sign(grant: SignedDownload, expires: number): string {
    return createHmac("sha256", this.settings.signingKey)
      .update(JSON.stringify([grant.key, expires, grant.filename, grant.contentType]))
      .digest("hex");
  }
}
