import { S3BlobStore } from "./s3-blob-store";

// Presigned URLs name the endpoint clients reach (S3_PUBLIC_ENDPOINT), not the one the services
// use inside their network (docker compose: http://minio:9000, unreachable from the host).
// Signing is local (the region is set): no S3 server is needed here. `pnpm compose:check`
// downloads an attachment from the host through such a URL.
describe("S3BlobStore presigned URLs", () => {
  const settings = { endpoint: "http://minio:9000", accessKey: "key", secretKey: "secret-key-0123456789", bucket: "mailstop", region: "us-east-1" };

  it("sign for the public endpoint when one is set", async () => {
    const url = new URL(await new S3BlobStore({ ...settings, publicEndpoint: "https://objects.example.com:8443" }).presignGet("raw/a b", 60, { filename: "a.txt" }));
    expect(url.origin).toBe("https://objects.example.com:8443");
    expect(url.pathname).toBe("/mailstop/raw/a%20b");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get("response-content-disposition")).toContain("a.txt");
  });

  it("sign for S3_ENDPOINT otherwise", async () => {
    expect(new URL(await new S3BlobStore({ ...settings, publicEndpoint: null }).presignGet("k", 60)).origin).toBe("http://minio:9000");
    expect(new URL(await new S3BlobStore(settings).presignGet("k", 60)).origin).toBe("http://minio:9000");
  });
});
