import { findProjectById } from "@mailstop/db";
import { adminSource } from "../../audit/audit-source";
import { type ApiDeps, adminRoute } from "../../deps";
import { issueSmtpCredential } from "../../provisioning/credentials";
import { projectNotFound } from "./admin-not-found";

/** POST /admin/v1/projects/{id}/smtp-credentials: replaces the previous credential. */
export const createSmtpCredentialRoute = ({ db }: ApiDeps) =>
  adminRoute("createSmtpCredential", async ({ params, requestId }) => {
    const project = await findProjectById(db, params.id);
    if (project === null) throw projectNotFound(params.id);
    return { status: 201, body: await issueSmtpCredential(db, project, adminSource({ requestId })) };
  });
