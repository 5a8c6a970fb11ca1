import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { S3Settings } from "@mailstop/blob-store";
// s3rver ships no types; it is a Koa app whose run() listens and returns the address.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require("s3rver") as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; httpServer?: Server };
import { freePort } from "@mailstop/deploy";

/** An S3 server of the test's own (npm s3rver, files in a temporary directory). */
export interface TestS3 {
  endpoint: string;
  port: number;
  /** Where s3rver keeps the objects (one file per object, plus metadata files). */
  directory: string;
  settings: S3Settings;
  /** The S3_* variables that point mailstop at it. */
  env: Record<string, string>;
  /** Stops accepting and drops open connections; `keepData` leaves the files for a restart. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** Starts an S3 server on `port` (a free one by default), reusing `directory` when given. */
export async function startTestS3(options: { port?: number; directory?: string; bucket?: string } = {}): Promise<TestS3> {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), "mailstop-s3-")));
  const port = options.port ?? (await freePort());
  const server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, allowMismatchedSignatures: true });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const bucket = options.bucket ?? "mailstop";
  return {
    endpoint,
    port,
    directory,
    settings: { endpoint, accessKey: "S3RVER", secretKey: "S3RVER", bucket, region: "us-east-1" },
    env: { S3_ENDPOINT: endpoint, S3_ACCESS_KEY: "S3RVER", S3_SECRET_KEY: "S3RVER", S3_BUCKET: bucket },
    async stop({ keepData = false } = {}) {
      const http = server.httpServer;
      if (http?.listening) {
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeAllConnections();
        await closed;
      }
      if (!keepData) await rm(directory, { recursive: true, force: true });
    },
  };
}
