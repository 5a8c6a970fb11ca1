import { normaliseTag } from "@mailstop/core";
import { invalidRequest } from "@mailstop/openapi";
import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { ensureProjectInbox, resolveReceivingDomain } from "../../inboxes/inbox.service";
import { toInboxView } from "../../inboxes/inbox.view";

/**
 * POST /v1/inboxes: idempotent on the resulting address. The tag is lower-cased, then must
 * follow the grammar; an existing inbox is returned as it is (201 either way).
 */
export const createInboxRoute = ({ db, config }: ApiDeps) =>
  publicRoute("createInbox", async ({ auth, body, requestId }) => {
    const tag = normaliseTag(body.tag);
    if (tag === null) {
      invalidRequest([{ in: "body", path: "/tag", message: "must be dot-separated segments of a-z, 0-9, - and _ (it is lower-cased, never slugified)" }]);
    }
    const domain = await resolveReceivingDomain(db, auth.project.id, body.domain, config.sharedDomain);
    const { inbox } = await ensureProjectInbox(db, auth.project, config.sharedDomain, {
      tag,
      domain,
      labels: body.labels ?? {},
      retentionSeconds: body.retention_seconds,
      localPartFrom: "/tag",
    }, keySource({ auth, requestId }));
    return { status: 201, body: toInboxView(inbox) };
  });
