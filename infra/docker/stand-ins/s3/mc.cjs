#!/usr/bin/env node
// The commands of `mc` that docker-compose.yml runs, on the minio client (npm):
//   mc alias set <alias> <url> <user> <password>
//   mc mb [--ignore-existing] <alias>/<bucket>
//   mc ready <alias>          (`local`: this container's own server on 9000)
"use strict";
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const Minio = require("minio");

const CONFIG = join(process.env.HOME || "/tmp", ".mc-stand-in.json");
const aliases = () => (existsSync(CONFIG) ? JSON.parse(readFileSync(CONFIG, "utf8")) : {});
function client(alias) {
  const found = aliases()[alias] ?? (alias === "local" ? { url: "http://127.0.0.1:9000", user: process.env.MINIO_ROOT_USER || "minioadmin", password: process.env.MINIO_ROOT_PASSWORD || "minioadmin" } : null);
  if (!found) throw new Error(`mc: no alias ${alias}`);
  const url = new URL(found.url);
  return new Minio.Client({ endPoint: url.hostname, port: Number(url.port || 80), useSSL: url.protocol === "https:", accessKey: found.user, secretKey: found.password, region: "us-east-1" });
}

async function main(args) {
  const [command, ...rest] = args;
  if (command === "alias" && rest[0] === "set") {
    const [, alias, url, user, password] = rest;
    mkdirSync(join(CONFIG, ".."), { recursive: true });
    writeFileSync(CONFIG, JSON.stringify({ ...aliases(), [alias]: { url, user, password } }));
    console.log(`Added \`${alias}\` successfully.`);
  } else if (command === "mb") {
    const target = rest.filter((arg) => !arg.startsWith("--"))[0];
    const [alias, bucket] = target.split("/");
    const s3 = client(alias);
    if (await s3.bucketExists(bucket)) {
      if (!rest.includes("--ignore-existing")) throw new Error(`mc: bucket ${bucket} exists`);
    } else {
      await s3.makeBucket(bucket, "us-east-1");
    }
    console.log(`Bucket created successfully \`${target}\`.`);
  } else if (command === "ready") {
    await client(rest[0]).listBuckets();
    console.log(`The cluster is ready`);
  } else {
    throw new Error(`mc (stand-in): ${command} is not one of alias set, mb, ready`);
  }
}
main(process.argv.slice(2)).catch((error) => {
  console.error(error.message || error);
  process.exit(1);
});
