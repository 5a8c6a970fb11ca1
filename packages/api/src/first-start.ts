import type { Config } from "@mailstop/config";
import { sha256, systemSource } from "@mailstop/core";
import { type Db, isEmptyInstallation, knowsSecrets, oldestProjectKeys, withTransactionLock } from "@mailstop/db";
import { type ProvisionedProject, provisionProject } from "./provisioning/provision-project";

/** The project a first start creates (docs/operator.md "First start"). */
export const FIRST_START_PROJECT_KEY = "local";

// One advisory lock id for "first start": two instances starting on one empty database must
// not both create a project.
const FIRST_START_LOCK = 4_106_230_001;

/** A bootstrap setting a start could not apply, and why, for the start to say so. */
export interface IgnoredSetting {
  name: "MAILSTOP_BOOTSTRAP_API_KEY" | "MAILSTOP_BOOTSTRAP_SMTP_PASSWORD";
  why: string;
}

/**
 * What a start of the monolithic target did about projects: on an empty database without an
 * admin token it created `local` (its credentials for the caller to print once); with an admin
 * token it left that to the operator; on a database in use it did nothing, and names its first
 * projects. Either of the last two reports the bootstrap settings it could not apply.
 */
export type FirstStart =
  | { kind: "created"; project: ProvisionedProject }
  | { kind: "left-to-operator"; ignored: IgnoredSetting[] }
  | { kind: "not-first"; projects: string[]; ignored: IgnoredSetting[] };

/** How many projects a restart names. */
const NAMED_PROJECTS = 3;

export async function bootstrapFirstStart(db: Db, config: Config): Promise<FirstStart> {
  return withTransactionLock(db, FIRST_START_LOCK, async (trx): Promise<FirstStart> => {
    if (!(await isEmptyInstallation(trx))) return { kind: "not-first", projects: await oldestProjectKeys(trx, NAMED_PROJECTS), ignored: await unmatchedBootstrapSettings(trx, config) };
    if (config.adminToken !== null) return { kind: "left-to-operator", ignored: bootstrapSettings(config).map((name) => ({ name, why: "MAILSTOP_ADMIN_TOKEN is set, so no project was created to take it" })) };
    const project = await provisionProject(trx, config, {
      projectKey: FIRST_START_PROJECT_KEY,
      ...(config.bootstrapApiKey === null ? {} : { fixedApiKey: config.bootstrapApiKey }),
      ...(config.bootstrapSmtpPassword === null ? {} : { fixedSmtpPassword: config.bootstrapSmtpPassword }),
    }, systemSource("first-start"));
    return { kind: "created", project };
  });
}

const bootstrapSettings = (config: Config): IgnoredSetting["name"][] => [
  ...(config.bootstrapApiKey === null ? [] : (["MAILSTOP_BOOTSTRAP_API_KEY"] as const)),
  ...(config.bootstrapSmtpPassword === null ? [] : (["MAILSTOP_BOOTSTRAP_SMTP_PASSWORD"] as const)),
];

/**
 * The bootstrap settings of a restart that do not match what the database holds: they apply
 * on a first start only, so a key set after it would silently answer 401. One that matches (a
 * CI job restarting with the settings that created `local`) is no news and is not reported.
 */
async function unmatchedBootstrapSettings(db: Db, config: Config): Promise<IgnoredSetting[]> {
  if (bootstrapSettings(config).length === 0) return [];
  const known = await knowsSecrets(db, {
    apiKeyHash: config.bootstrapApiKey === null ? null : sha256(config.bootstrapApiKey),
    smtp: config.bootstrapSmtpPassword === null ? null : { username: FIRST_START_PROJECT_KEY, passwordHash: sha256(config.bootstrapSmtpPassword) },
  });
  const ignored: IgnoredSetting[] = [];
  if (config.bootstrapApiKey !== null && !known.apiKey) {
    ignored.push({ name: "MAILSTOP_BOOTSTRAP_API_KEY", why: "it is not a key of this database, so a request with it is refused (401 invalid_api_key)" });
  }
  if (config.bootstrapSmtpPassword !== null && !known.smtpPassword) {
    ignored.push({ name: "MAILSTOP_BOOTSTRAP_SMTP_PASSWORD", why: `it is not the capture relay password of \`${FIRST_START_PROJECT_KEY}\`, so AUTH with it is refused (535)` });
  }
  return ignored;
}

/** Where the installation's data is, as its operator names it. */
const whereData = (config: Config) => (config.databaseUrl === null ? `the data directory ${config.dataDir}` : "the database of DATABASE_URL");

/**
 * The text printed once to stdout on a first start, saying what it did and why, or on a later
 * start the bootstrap settings it ignored; null when there is nothing to say. Credentials go
 * here, never through the logger, which must not see secrets.
 */
export function describeFirstStart(outcome: FirstStart, config: Config): string | null {
  if (outcome.kind === "not-first") {
    if (outcome.ignored.length === 0) return null;
    return [
      ...outcome.ignored.map((setting) => `mailstop: ${setting.name} is ignored: bootstrap settings apply on a first start only, and ${whereData(config)} already holds projects (${outcome.projects.join(", ")}); ${setting.why}.`),
      `  Use the credentials printed at the first start, make a new key with \`mailstop keys create --project ${FIRST_START_PROJECT_KEY}\` (docs/operator.md "A new key for an existing project"), or start on an empty data directory.`,
      "",
    ].join("\n");
  }
  if (outcome.kind === "left-to-operator") {
    return [
      "mailstop: first start on an empty database; MAILSTOP_ADMIN_TOKEN is set, so no project was created: create one with POST /admin/v1/bootstrap.",
      ...outcome.ignored.map((setting) => `mailstop: ${setting.name} is ignored: ${setting.why}.`),
      "",
    ].join("\n");
  }
  const { project } = outcome;
  const origin = config.bootstrapApiKey === null ? "generated now" : "taken from MAILSTOP_BOOTSTRAP_API_KEY";
  const passwordOrigin = config.bootstrapSmtpPassword === null ? "generated now" : "taken from MAILSTOP_BOOTSTRAP_SMTP_PASSWORD";
  return [
    "",
    "mailstop: first start on an empty database; created project `local`.",
    "These credentials are shown once and stored only as SHA-256 hashes:",
    `  API key (${origin}): ${project.api_key}`,
    `  SMTP capture relay:  ${project.smtp.host}:${project.smtp.port}  user ${project.smtp.username}  password ${project.smtp.password}  (${passwordOrigin})`,
    `  Try: curl -H "Authorization: Bearer ${project.api_key}" ${config.http.publicUrl}/v1/auth/check`,
    "",
  ].join("\n");
}
