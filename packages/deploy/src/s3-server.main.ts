/**
 * An s3rver (npm s3rver, the S3 stand-in of this repository's tests) in a process of its own,
 * for the benchmark and the fault drills: its CPU is not the caller's, and a drill can kill it,
 * freeze it (SIGSTOP) and start it again on the same port and directory. mailstop creates its
 * bucket. Usage: s3-server.main.ts <port> <directory>
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

// A module, not a script: its names stay its own in the repository's single type-check program.
export {};
