import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { sql } from "kysely";
import type { TestServer } from "./test-server-handle";

/**
 * Where a started in-process server holds `needle`, compared case-insensitively: each table
 * and column of its database, each file of its object store (the test S3's directory, or the
 * directory store), each Redis key under its prefix, and its log. An erasure test expects none.
 */
export async function copiesOf(server: Pick<TestServer, "db" | "s3" | "config" | "logs">, needle: string): Promise<string[]> {
  const wanted = needle.toLowerCase();
  const found: string[] = [];
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(server.db);
  for (const { name } of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(server.db);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) if (textOf(value).toLowerCase().includes(wanted)) found.push(`table ${name}.${column}`);
    }
  }
  const objects = server.s3?.directory ?? join(server.config.dataDir, "objects");
  for (const file of filesUnder(objects)) if (readFileSync(file).toString("latin1").toLowerCase().includes(wanted)) found.push(`object ${file}`);
  if (server.config.redisUrl !== null) found.push(...(await redisKeysHolding(server.config.redisUrl, server.config.redisPrefix, wanted)));
  if (server.logs().toLowerCase().includes(wanted)) found.push("the log");
  return [...new Set(found)];
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Uint8Array) return Buffer.from(value).toString("latin1");
  return typeof value === "string" ? value : JSON.stringify(value);
}

function filesUnder(directory: string): string[] {
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? filesUnder(join(directory, entry.name)) : [join(directory, entry.name)]));
}

/** The keys under `prefix` whose name or value holds `wanted` (lower-case): BullMQ's jobs, slots, greylist. */
async function redisKeysHolding(url: string, prefix: string, wanted: string): Promise<string[]> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const found: string[] = [];
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
      for (const key of keys as string[]) {
        const values = await valuesOf(redis, key);
        if ([key, ...values].some((value) => value.toLowerCase().includes(wanted))) found.push(`redis ${key}`);
      }
    }
    return found;
  } finally {
    redis.disconnect();
  }
}

async function valuesOf(redis: Redis, key: string): Promise<string[]> {
  switch (await redis.type(key)) {
    case "string":
      return [(await redis.get(key)) ?? ""];
    case "hash":
      return Object.entries(await redis.hgetall(key)).flat();
    case "list":
      return redis.lrange(key, 0, -1);
    case "set":
      return redis.smembers(key);
    case "zset":
      return redis.zrange(key, 0, -1);
    case "stream":
      return (await redis.xrange(key, "-", "+")).flatMap(([, fields]) => fields);
    default:
      return [];
  }
}
