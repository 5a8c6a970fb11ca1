import type { Config } from "@mailstop/config";
import { type Db, isEmptyInstallation, withTransactionLock } from "@mailstop/db";
import { type ProvisionedProject, provisionProject } from "./provisioning/provision-project";

/** The project a first start creates (OPERATOR.md). */
export const FIRST_START_PROJECT_KEY = "local";

// One advisory lock id for "first start": two instances starting on one empty database must
// not both create a project.
const FIRST_START_LOCK = 4_106_230_001;

/**
 * On a first start of the monolithic target (empty database, no admin token), creates the
 * `local` project and returns its credentials for the caller to print once; otherwise null.
 */
export async function bootstrapFirstStart(db: Db, config: Config): Promise<ProvisionedProject | null> {
  if (config.adminToken !== null) return null;
  return withTransactionLock(db, FIRST_START_LOCK, async (trx) => {
    if (!(await isEmptyInstallation(trx))) return null;
    return provisionProject(trx, config, {
      projectKey: FIRST_START_PROJECT_KEY,
      ...(config.bootstrapApiKey === null ? {} : { fixedApiKey: config.bootstrapApiKey }),
      ...(config.bootstrapSmtpPassword === null ? {} : { fixedSmtpPassword: config.bootstrapSmtpPassword }),
    });
  });
}

/** The text printed once to stdout: never through the logger, which must not see secrets. */
export function describeFirstStart(project: ProvisionedProject, config: Config): string {
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
