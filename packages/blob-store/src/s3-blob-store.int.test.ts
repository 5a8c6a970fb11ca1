import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { type TestS3, startTestS3 } from "@mailstop/testkit";
import { blobKeys } from "./blob-keys";
import { PART_BYTES, S3BlobStore } from "./s3-blob-store";

let s3: TestS3;
let store: S3BlobStore;

beforeAll(async () => {
  s3 = await startTestS3();
  store = new S3BlobStore(s3.settings);
  await store.ensureReady();
});
afterAll(() => s3.stop());

const read = async (stream: Readable | null) => {
  if (stream === null) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

describe("S3BlobStore against an S3 server", () => {
  it("creates its bucket once, also when asked again", async () => {
    await expect(store.ensureReady()).resolves.toBeUndefined();
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

  it("signs a download URL that serves the bytes without credentials", async () => {
    await store.put("p/report.pdf", Buffer.from("%PDF-1.7"));
    const url = await store.presignGet("p/report.pdf", 60, { filename: "report.pdf", contentType: "application/pdf" });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("%PDF-1.7");
  });

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
