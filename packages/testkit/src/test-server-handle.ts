import { randomBytes } from "node:crypto";
import type { BlobStore } from "@mailstop/blob-store";
import { type AdminClient, type MailstopClient, createAdminClient, createMailstopClient } from "@mailstop/client";
import type { Config } from "@mailstop/config";
import type { Scope } from "@mailstop/core";
import type { Db } from "@mailstop/db";
import type { RunningTarget } from "@mailstop/runtime";
import type { TestS3 } from "./s3";

// What a test holds of a started mailstop, wherever it runs (in this process, or the fleet's
// processes): the handle, the settings every test server shares, and unique names. Apart from
// test-server.ts so that the fleet world builds handles without importing what starts servers.

/** The admin token every test server is started with. */
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789abcdef0123456789";
/** The key every test fleet seals webhook secrets with (the monolith in tests generates its own). */
export const TEST_SECRETS_KEY = "7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec";

const suffix = () => randomBytes(5).toString("hex");

/**
 * The rate limits test servers start with unless a test sets its own: far above what any suite
 * sends with one key (a suite creates 51 inboxes at once; the default write limit is 10/s,
 * bursts of 20). Suites of the limits themselves set small ones, or "" for the defaults.
 */
export const TEST_RATE_LIMITS = { MAILSTOP_RATE_LIMIT_READ: "100000", MAILSTOP_RATE_LIMIT_WRITE: "100000" } as const;

/** A project key no other test uses. */
export function uniqueProjectKey(prefix = "t"): string {
  return `${prefix}${randomBytes(6).toString("hex")}`;
}

/** A tag, run id or domain no other test uses. */
export const uniqueTag = (prefix = "tag") => `${prefix}.${suffix()}`;
export const uniqueRunId = (prefix = "run") => `${prefix}-${suffix()}`;
export const uniqueDomain = (prefix = "d") => `${prefix}-${suffix()}.example.com`;

export interface TestProject {
  organisationId: string;
  projectId: string;
  projectKey: string;
  apiKey: string;
  apiKeyId: string;
  smtp: { host: string; port: number; username: string; password: string };
  /** A typed client authenticated with this project's key. */
  client: MailstopClient;
}

export interface TestServer {
  url: string;
  /** With `mail: true`: the SMTP ports and the S3 server of this server. */
  smtp: { receiving: number; capture: number } | null;
  s3: TestS3 | null;
  config: Config;
  /** The started target in this process (not in the fleet world: its tests go in a *.in-process.int.test.ts file). */
  running: RunningTarget;
  db: Db;
  /** The object store the server writes to, as the server sees it (null without one). */
  blobs: BlobStore | null;
  admin: AdminClient;
  /** Everything the server logged so far, as JSON lines. */
  logs(): string;
  /** Text the server printed outside the log (first-start credentials). */
  printed(): string;
  client(apiKey?: string): MailstopClient;
  bootstrap(body?: { project_key?: string; scopes?: Scope[]; environment?: "test" | "live"; region?: "us" | "eu" }): Promise<TestProject>;
  stop(): Promise<void>;
}

/** A TestServer around a started mailstop, wherever it runs: adds the admin and API clients. */
export function testServerHandle(
  parts: Omit<TestServer, "running" | "admin" | "client" | "bootstrap"> & { running: RunningTarget | null },
): TestServer {
  const admin = createAdminClient({ baseUrl: parts.url, adminToken: TEST_ADMIN_TOKEN });
  const client = (apiKey?: string) => createMailstopClient({ baseUrl: parts.url, ...(apiKey === undefined ? {} : { apiKey }) });
  const { running, ...rest } = parts;
  return {
    ...rest,
    get running(): RunningTarget {
      if (running === null) throw new Error("this server runs in other processes (the fleet world): a test of its internals goes in a *.in-process.int.test.ts file");
      return running;
    },
    admin,
    client,
    async bootstrap(body = {}) {
      const { data, error } = await admin.POST("/admin/v1/bootstrap", { body: { project_key: uniqueProjectKey(), ...body } });
      if (error || !data) throw new Error(`bootstrap failed: ${JSON.stringify(error)}`);
      return {
        organisationId: data.organisation_id,
        projectId: data.project_id,
        projectKey: data.project_key,
        apiKey: data.api_key,
        apiKeyId: data.api_key_id,
        smtp: data.smtp,
        client: client(data.api_key),
      };
    },
  };
}
