import type { Config } from "@mailstop/config";
import { systemSource } from "@mailstop/core";
import { type Db, isEmptyInstallation, withTransactionLock } from "@mailstop/db";
import { type ProvisionedProject, provisionProject } from "./provisioning/provision-project";

/** The project a first start creates (docs/operator.md "First start"). */
export const FIRST_START_PROJECT_KEY = "local";

// One advisory lock id for "first start": two instances starting on one empty database must
// not both create a project.
const FIRST_START_LOCK = 4_106_230_001;

/**
 * What a start of the monolithic target did about projects: on an empty database without an
 * admin token it created `local` (its credentials for the caller to print once); with an admin
 * token it left that to the operator; on a database in use it did nothing.
 */
export type FirstStart = { kind: "created"; project: ProvisionedProject } | { kind: "left-to-operator" } | { kind: "not-first" };

export async function bootstrapFirstStart(db: Db, config: Config): Promise<FirstStart> {
  return withTransactionLock(db, FIRST_START_LOCK, async (trx): Promise<FirstStart> => {
    if (!(await isEmptyInstallation(trx))) return { kind: "not-first" };
    if (config.adminToken !== null) return { kind: "left-to-operator" };
    const project = await provisionProject(trx, config, {
      projectKey: FIRST_START_PROJECT_KEY,
      ...(config.bootstrapApiKey === null ? {} : { fixedApiKey: config.bootstrapApiKey }),
      ...(config.bootstrapSmtpPassword === null ? {} : { fixedSmtpPassword: config.bootstrapSmtpPassword }),
    }, systemSource("first-start"));
    return { kind: "created", project };
  });
}

/**
 * The text printed once to stdout on a first start, saying what it did and why; null on a
 * database in use. Credentials go here, never through the logger, which must not see secrets.
 */
export function describeFirstStart(outcome: FirstStart, config: Config): string | null {
  if (outcome.kind === "not-first") return null;
  if (outcome.kind === "left-to-operator") {
    return "mailstop: first start on an empty database; MAILSTOP_ADMIN_TOKEN is set, so no project was created: create one with POST /admin/v1/bootstrap.\n";
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
