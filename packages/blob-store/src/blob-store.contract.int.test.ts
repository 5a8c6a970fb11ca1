import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { type TestS3, startTestS3, testWorld } from "@mailstop/testkit";
import { blobKeys } from "./blob-keys";
import type { BlobStore } from "./blob-store";
import { DirectoryBlobStore, SIGNED_DOWNLOAD_PATH, loadOrCreateSigningKey } from "./directory-blob-store";
import { PART_BYTES, S3BlobStore } from "./s3-blob-store";

// One contract for the object store port, run against S3 (an s3rver) with the real engines
// and against the directory stand-in in both worlds.

const read = async (stream: Readable | null) => {
  if (stream === null) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

interface StoreAdapter {
  store: BlobStore;
  /** Fetches a presigned URL the way a client without credentials would; the bytes it serves. */
  download(url: string): Promise<string>;
  stop(): Promise<void>;
}

async function s3Adapter(): Promise<StoreAdapter> {
  const s3: TestS3 = await startTestS3();
  const store = new S3BlobStore(s3.settings);
  return {
    store,
    download: async (url) => {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      return response.text();
    },
    stop: () => s3.stop(),
  };
}

function directoryAdapter(): StoreAdapter {
  const root = mkdtempSync(join(tmpdir(), "mailstop-blobs-"));
  const store = new DirectoryBlobStore({ root: join(root, "objects"), publicUrl: "http://127.0.0.1:1", signingKey: loadOrCreateSigningKey(root) });
  return {
    store,
    // The HTTP side (the api's signed-download route) has its own end-to-end test; here the
    // grant the URL carries is checked and its object read.
    download: async (url) => {
      const { pathname, searchParams } = new URL(url);
      const key = decodeURIComponent(pathname.slice(SIGNED_DOWNLOAD_PATH.length));
      const grant = store.verifyDownload(key, Object.fromEntries(searchParams));
      if (typeof grant === "string") throw new Error(`download refused: ${grant}`);
      return (await read(await store.get(grant.key)))!;
    },
    stop: async () => rmSync(root, { recursive: true, force: true }),
  };
}

const ADAPTERS: [string, () => Promise<StoreAdapter>][] = [
  ...(testWorld() === "engines" ? [["S3", s3Adapter] as [string, () => Promise<StoreAdapter>]] : []),
  ["directory", async () => directoryAdapter()],
];

describe.each(ADAPTERS)("BlobStore contract: %s", (_name, create) => {
  let adapter: StoreAdapter;
  let store: BlobStore;
  beforeAll(async () => {
    adapter = await create();
    store = adapter.store;
    await store.ensureReady();
  });
  afterAll(() => adapter.stop());

  it("creates its bucket once, also when asked again and by several at once", async () => {
    await expect(store.ensureReady()).resolves.toBeUndefined();
    const fresh = await create();
    try {
      await expect(Promise.all([1, 2, 3, 4].map(() => fresh.store.ensureReady()))).resolves.toHaveLength(4);
    } finally {
      await fresh.stop();
    }
  });

  it("stores a buffer and a stream, reporting their sizes, and reads them back", async () => {
    expect(await store.put("a/buffer", Buffer.from("hello"))).toEqual({ size: 5 });
    expect(await store.put("a/stream", Readable.from([Buffer.from("hel"), Buffer.from("lo world")]))).toEqual({ size: 11 });
    expect(await read(await store.get("a/buffer"))).toBe("hello");
    expect(await read(await store.get("a/stream"))).toBe("hello world");
    expect(await store.stat("a/stream")).toEqual({ size: 11 });
  });

  it("streams a body larger than one part as a multipart upload, byte for byte", async () => {
    const size = 2 * PART_BYTES + 12_345;
    const produced = createHash("sha256");
    // Produced lazily in odd-sized chunks, so parts are cut across chunk boundaries.
    const source = Readable.from(
      (function* () {
        for (let sent = 0; sent < size; ) {
          const chunk = randomBytes(Math.min(777_777, size - sent));
          produced.update(chunk);
          sent += chunk.length;
          yield chunk;
        }
      })(),
    );
    expect(await store.put("big/object", source, { contentType: "application/pdf" })).toEqual({ size });
    expect(await store.stat("big/object")).toEqual({ size });
    const read = createHash("sha256");
    for await (const chunk of (await store.get("big/object"))!) read.update(chunk as Buffer);
    expect(read.digest("hex")).toBe(produced.digest("hex"));
  });

  it("stores an empty stream as an empty object", async () => {
    expect(await store.put("empty/object", Readable.from([]))).toEqual({ size: 0 });
    expect(await store.stat("empty/object")).toEqual({ size: 0 });
  });

  it("answers null for a missing object", async () => {
    expect(await store.get("missing/key")).toBeNull();
    expect(await store.stat("missing/key")).toBeNull();
  });

  it("copies inside the store", async () => {
    await store.put("c/source", Buffer.from("copied"));
    await store.copy("c/source", "c/target");
    expect(await read(await store.get("c/target"))).toBe("copied");
  });

  it("deletes keys and whole prefixes", async () => {
    const prefix = blobKeys.transaction("prj_x", "tx1");
    await store.put(blobKeys.raw("prj_x", "tx1"), Buffer.from("raw"));
    await store.put(blobKeys.attachment("prj_x", "tx1", 0), Buffer.from("att"));
    await store.put(blobKeys.raw("prj_x", "tx2"), Buffer.from("other"));
    await store.deletePrefix(prefix);
    expect(await store.stat(blobKeys.raw("prj_x", "tx1"))).toBeNull();
    expect(await store.stat(blobKeys.attachment("prj_x", "tx1", 0))).toBeNull();
    expect(await store.stat(blobKeys.raw("prj_x", "tx2"))).toEqual({ size: 5 });
    await store.delete([blobKeys.raw("prj_x", "tx2"), "never/existed"]);
    expect(await store.stat(blobKeys.raw("prj_x", "tx2"))).toBeNull();
  });

  it("lists the folders directly under a prefix, in order, and nothing under a missing one", async () => {
    const project = `prj_list${Date.now()}`;
    for (const tx of ["tx3", "tx1", "tx2"]) await store.put(blobKeys.raw(project, tx), Buffer.from(tx));
    await store.put(blobKeys.attachment(project, "tx1", 0), Buffer.from("att"));
    const listed: string[] = [];
    for await (const prefix of store.listPrefixes(`projects/${project}/tx/`)) listed.push(prefix);
    expect(listed).toEqual(["tx1", "tx2", "tx3"].map((tx) => blobKeys.transaction(project, tx)));
    // Not asked of a level whose folders hold only folders (`projects/`): s3rver prunes those
    // and answers nothing, where S3 and MinIO list them. The sweep lists transactions only.
    const none: string[] = [];
    for await (const prefix of store.listPrefixes("projects/prj_none/tx/")) none.push(prefix);
    expect(none).toEqual([]);
  });

  it("signs a download URL that serves the bytes without credentials", async () => {
    await store.put("p/report.pdf", Buffer.from("%PDF-1.7"));
    const url = await store.presignGet("p/report.pdf", 60, { filename: "report.pdf", contentType: "application/pdf" });
    expect(await adapter.download(url)).toBe("%PDF-1.7");
  });

  it("overwrites an object as a whole", async () => {
    await store.put("o/key", Buffer.from("first version, longer"));
    await store.put("o/key", Readable.from([Buffer.from("second")]));
    expect(await read(await store.get("o/key"))).toBe("second");
  });
});

describe("S3 specifics", () => {
  // An s3rver of its own (an npm package in this process): it runs in every world.
  it("fails with storage_unavailable, retryable, when the server is down", async () => {
    const down = await startTestS3();
    const orphan = new S3BlobStore(down.settings);
    await orphan.ensureReady();
    await down.stop();
    const failure = orphan.put("x", Buffer.from("y"));
    await expect(failure).rejects.toBeInstanceOf(MailstopError);
    await expect(failure).rejects.toMatchObject({ code: "storage_unavailable", retryable: true });
  });
});

describe("directory specifics", () => {
  let root: string;
  let store: DirectoryBlobStore;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "mailstop-blobs-"));
    store = new DirectoryBlobStore({ root: join(root, "objects"), publicUrl: "http://mailstop.example", signingKey: loadOrCreateSigningKey(root) });
    await store.ensureReady();
    await store.put("projects/p/tx/t/attachments/0", Buffer.from("bytes"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const signed = async (key: string, ttl = 60) => {
    const url = new URL(await store.presignGet(key, ttl, { filename: "report.pdf", contentType: "application/pdf" }));
    return { url, key: decodeURIComponent(url.pathname.slice(SIGNED_DOWNLOAD_PATH.length)), query: Object.fromEntries(url.searchParams) };
  };

  it("signs URLs on the public origin that grant exactly this key, file name and type", async () => {
    const { url, key, query } = await signed("projects/p/tx/t/attachments/0");
    expect(url.origin).toBe("http://mailstop.example");
    expect(store.verifyDownload(key, query)).toEqual({ key: "projects/p/tx/t/attachments/0", filename: "report.pdf", contentType: "application/pdf" });
  });

  it("refuses a URL whose key, headers, expiry or signature was altered, and one past its expiry", async () => {
    const { key, query } = await signed("projects/p/tx/t/attachments/0");
    expect(store.verifyDownload("projects/p/tx/t/raw.eml", query)).toBe("invalid");
    expect(store.verifyDownload(key, { ...query, filename: "other.exe" })).toBe("invalid");
    expect(store.verifyDownload(key, { ...query, expires: String(Number(query.expires) + 3600) })).toBe("invalid");
    expect(store.verifyDownload(key, { ...query, signature: "00" })).toBe("invalid");
    expect(store.verifyDownload(key, { ...query, signature: undefined })).toBe("invalid");
    expect(store.verifyDownload(key, query, (Number(query.expires) + 1) * 1000)).toBe("expired");
  });

  it("keeps its signing key across restarts, readable by its owner only", () => {
    expect(loadOrCreateSigningKey(root).equals(loadOrCreateSigningKey(root))).toBe(true);
    expect(statSync(join(root, "download-signing.key")).mode & 0o077).toBe(0);
  });

  it("refuses keys that would leave its directory", async () => {
    for (const key of ["../escape", "a/../../b", "/absolute", "a//b", ""]) {
      await expect(store.put(key, Buffer.from("x"))).rejects.toMatchObject({ code: "invalid_request" });
    }
  });

  it("never shows a half-written object: a failed stream leaves the old bytes in place", async () => {
    await store.put("h/key", Buffer.from("complete"));
    const failing = new Readable({
      read() {
        this.push(Buffer.from("partial"));
        this.destroy(new Error("sender went away"));
      },
    });
    await expect(store.put("h/key", failing)).rejects.toMatchObject({ code: "storage_unavailable" });
    expect(await read(await store.get("h/key"))).toBe("complete");
  });
});
