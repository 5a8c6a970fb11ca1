/**
 * The S3 server mailstop stores into during the benchmark (npm s3rver, the S3 stand-in of this
 * repository's tests), in its own process so its CPU is not the load generator's.
 * Usage: s3-server.ts <port> <directory>
 */
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require("s3rver") as new (options: Record<string, unknown>) => { run(): Promise<unknown> };

const [port, directory] = process.argv.slice(2);
new S3rver({ port: Number(port), address: "127.0.0.1", silent: true, directory, allowMismatchedSignatures: true }).run().then(
  () => console.log(`s3rver listening on ${port}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
process.on("SIGTERM", () => process.exit(0));
