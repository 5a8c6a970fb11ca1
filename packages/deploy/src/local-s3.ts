import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
// s3rver ships no types; it is a Koa app whose run() listens and returns the address.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require("s3rver") as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; httpServer?: Server };

/** An S3 server on loopback for `pnpm fleet` on a machine without one (npm s3rver, files in `directory`). */
export interface LocalS3 {
  endpoint: string;
  /** The S3_* variables that point mailstop at it. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts s3rver on `port`, keeping its objects in `directory` (created when missing), with
 * `bucket` created before any service starts, as compose's `bucket` one-shot does.
 */
export async function startLocalS3(options: { port: number; directory: string; bucket: string }): Promise<LocalS3> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    port: options.port,
    address: "127.0.0.1",
    silent: true,
    directory: options.directory,
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: options.bucket, configs: [] }],
  });
  await server.run();
  const endpoint = `http://127.0.0.1:${options.port}`;
  return {
    endpoint,
    env: { S3_ENDPOINT: endpoint, S3_ACCESS_KEY: "S3RVER", S3_SECRET_KEY: "S3RVER", S3_BUCKET: options.bucket },
    async stop() {
      const http = server.httpServer;
      if (!http?.listening) return;
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
