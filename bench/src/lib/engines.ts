import { Redis } from "ioredis";
import { Client } from "pg";

/** Runs `sql` on the server's `postgres` database (CREATE and DROP of a bench database). */
export async function onPostgres(databaseServer: string, sql: string): Promise<void> {
  const pg = new Client({ connectionString: `${databaseServer}/postgres` });
  await pg.connect();
  await pg.query(sql).finally(() => pg.end());
}

/** Deletes every Redis key under `prefix` (a bench target's own), through `redis` (connected here when it is not). */
export async function deleteRedisKeys(redis: Redis, prefix: string): Promise<void> {
  await redis.connect().catch(() => undefined);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
  redis.disconnect();
}
