import { randomBytes } from "node:crypto";
import { type AuditSource, type KeyEnvironment, MailstopError, newId } from "@mailstop/core";
import type { Config } from "@mailstop/config";
import { type Db, PROJECT_KEY_CONSTRAINT, inTransaction, type Project, insertOrganisation, insertProject, isUniqueViolation } from "@mailstop/db";
import { issueApiKey, issueSmtpCredential } from "./credentials";

/** A random project key: `p` and nine base-36 characters, within the key grammar. */
export function randomProjectKey(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return `p${[...randomBytes(9)].map((byte) => alphabet[byte % alphabet.length]).join("")}`;
}

/** Inserts a project, turning a taken key into `conflict` (project keys are global). */
export async function createProject(db: Db, input: { organisationId: string; key: string; region: "us" | "eu" }): Promise<Project> {
  try {
    return await insertProject(db, { id: newId("project"), ...input });
  } catch (error) {
    if (isUniqueViolation(error, PROJECT_KEY_CONSTRAINT)) {
      throw new MailstopError("conflict", `The project key ${input.key} is already taken.`, { details: { project_key: input.key } });
    }
    throw error;
  }
}

export interface ProvisionRequest {
  projectKey?: string;
  scopes?: readonly string[];
  environment?: KeyEnvironment;
  region?: "us" | "eu";
  fixedApiKey?: string;
  fixedSmtpPassword?: string;
}

export interface ProvisionedProject {
  organisation_id: string;
  project_id: string;
  project_key: string;
  api_key: string;
  api_key_id: string;
  smtp: { host: string; port: number; username: string; password: string };
}

/**
 * A new organisation, project, API key and SMTP credential, all or nothing (one transaction).
 * The response is the only place the key and password ever appear in clear. The key and the
 * credential are audited in the new project's trail, by `source`.
 */
export async function provisionProject(db: Db, config: Config, request: ProvisionRequest, source: AuditSource): Promise<ProvisionedProject> {
  return inTransaction(db, async (trx) => {
    const key = request.projectKey ?? randomProjectKey();
    const organisation = await insertOrganisation(trx, { id: newId("organisation"), name: key });
    const project = await createProject(trx, { organisationId: organisation.id, key, region: request.region ?? config.region });
    const apiKey = await issueApiKey(trx, project.id, {
      ...(request.scopes === undefined ? {} : { scopes: request.scopes }),
      ...(request.environment === undefined ? {} : { environment: request.environment }),
      ...(request.fixedApiKey === undefined ? {} : { fixedKey: request.fixedApiKey }),
    }, source);
    const smtp = await issueSmtpCredential(trx, project, source, request.fixedSmtpPassword);
    return {
      organisation_id: organisation.id,
      project_id: project.id,
      project_key: project.key,
      api_key: apiKey.key,
      api_key_id: apiKey.id,
      smtp: { host: config.captureClientHost, port: config.smtp.capturePublicPort, ...smtp },
    };
  });
}
