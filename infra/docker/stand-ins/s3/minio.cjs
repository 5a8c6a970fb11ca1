#!/usr/bin/env node
// `minio server <dir> [--address :9000] [--console-address …]`: s3rver on every interface, its
// objects in <dir>, accepting only MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (signatures checked),
// buckets in the path only (as MinIO: a host name such as `minio` is not a bucket).
"use strict";
const S3rver = require("s3rver");
const { DUMMY_ACCOUNT } = require("s3rver/lib/models/account");

const args = process.argv.slice(2);
if (args[0] !== "server" || !args[1]) {
  console.error("stand-in minio: usage: minio server <dir> [--address :9000]");
  process.exit(2);
}
const address = args.includes("--address") ? args[args.indexOf("--address") + 1] : ":9000";
const user = process.env.MINIO_ROOT_USER || "minioadmin";
const password = process.env.MINIO_ROOT_PASSWORD || "minioadmin";
DUMMY_ACCOUNT.revokeAccessKey("S3RVER");
DUMMY_ACCOUNT.createKeyPair(user, password);
const server = new S3rver({ address: "0.0.0.0", port: Number(address.split(":").pop()), directory: args[1], silent: true, vhostBuckets: false });
server.run().then(
  ({ port }) => console.log(`stand-in minio (s3rver): listening on ${port}, objects in ${args[1]}`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
