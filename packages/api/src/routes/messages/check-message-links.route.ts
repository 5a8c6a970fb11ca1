import { MailstopError } from "@mailstop/core";
import { storeLinkCheck } from "@mailstop/db";
import { checkLinks, linkGuard, linksToCheck } from "@mailstop/webhooks";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireMessage } from "../../messages/message-reference";

/**
 * POST /v1/messages/{id}/checks/links: requests the message's links through the webhooks'
 * address guard (docs/api.md "Message checks", `links`), stores the result with the message
 * (so it goes with the row: deletion, erasure, retention) and returns it.
 */
export const checkMessageLinksRoute = ({ db, config }: ApiDeps) => {
  const guard = linkGuard({ environment: config.environment, allowNetworks: config.webhooks.allowNetworks, dnsServers: config.dnsServers });
  return publicRoute("checkMessageLinks", async ({ auth, params }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    const links = await checkLinks(linksToCheck(record.links.map((link) => link.url)), guard);
    // Deleted, erased or expired while its links were asked: nothing is stored, as for any read of it now.
    if (!(await storeLinkCheck(db, auth.project.id, record.id, links))) throw new MailstopError("message_not_found", `No message ${params.id} in this project.`);
    return { status: 200, body: links };
  });
};
