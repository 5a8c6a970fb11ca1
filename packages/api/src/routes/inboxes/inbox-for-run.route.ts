import { runTag } from "@mailstop/core";
import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { ensureProjectInbox, resolveReceivingDomain } from "../../inboxes/inbox.service";
import { toInboxView } from "../../inboxes/inbox.view";

/**
 * POST /v1/inboxes/for-run: the one stable inbox of a run, tagged `run.<run_id>` and labelled
 * `run_id`. The document's pattern refuses capitals and spaces (no lower-casing here).
 */
export const inboxForRunRoute = ({ db, config }: ApiDeps) =>
  publicRoute("getInboxForRun", async ({ auth, body, requestId }) => {
    const domain = await resolveReceivingDomain(db, auth.project.id, body.domain, config.sharedDomain);
    const { inbox } = await ensureProjectInbox(db, auth.project, config.sharedDomain, {
      tag: runTag(body.run_id),
      domain,
      labels: { ...body.labels, run_id: body.run_id },
      retentionSeconds: body.retention_seconds,
      localPartFrom: "/run_id",
    }, keySource({ auth, requestId }));
    return { status: 200, body: toInboxView(inbox) };
  });
