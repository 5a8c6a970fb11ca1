import { randomBytes } from "node:crypto";
import pg from "pg";
import { withDatabase } from "./engines";

/** Creates an empty database with a unique name on the server of `serverUrl`; returns its URL. */
export async function createFreshDatabase(serverUrl: string, prefix = "mailstop_test"): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return { name, url: withDatabase(serverUrl, name) };
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}
