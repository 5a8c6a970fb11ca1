import { Redis } from "ioredis";
import { dropDatabase } from "./databases";

/** Deletes the Redis keys of this run (and only them: every test prefix starts with the run's). */
async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
      if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}

/** Drops this run's database and Redis keys (and stops its containers, if any were started). */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis.__MAILSTOP_RUN__;
  if (!run) return;
  await dropDatabase(run.serverUrl, run.database);
  await dropRedisKeys(run.redisUrl, run.redisPrefix).catch(() => undefined);
  for (const stop of run.stopContainers) await stop();
}
