import type { HttpContribution } from "@mailstop/http";
import { adminDocument, publicDocument } from "@mailstop/openapi";
import type { ApiDeps } from "./deps";
import { blockRecipientRoute } from "./routes/admin/block-recipient.route";
import { bootstrapRoute } from "./routes/admin/bootstrap.route";
import { createApiKeyRoute } from "./routes/admin/create-api-key.route";
import { createOrganisationRoute } from "./routes/admin/create-organisation.route";
import { createProjectRoute } from "./routes/admin/create-project.route";
import { createSmtpCredentialRoute } from "./routes/admin/create-smtp-credential.route";
import { revokeApiKeyRoute } from "./routes/admin/revoke-api-key.route";
import { updateOrganisationRoute } from "./routes/admin/update-organisation.route";
import { updateProjectRoute } from "./routes/admin/update-project.route";
import { checkAuthRoute } from "./routes/auth/check-auth.route";
import { eraseMessagesRoute } from "./routes/compliance/erase-messages.route";
import { listAuditEventsRoute } from "./routes/compliance/list-audit-events.route";
import { getArticleRoute } from "./routes/content/get-article.route";
import { listArticlesRoute } from "./routes/content/list-articles.route";
import { createDomainRoute } from "./routes/domains/create-domain.route";
import { deleteDomainRoute } from "./routes/domains/delete-domain.route";
import { getDomainRoute } from "./routes/domains/get-domain.route";
import { listDomainsRoute } from "./routes/domains/list-domains.route";
import { verifyDomainRoute } from "./routes/domains/verify-domain.route";
import { ensureFixturesRoute } from "./routes/fixtures/ensure-fixtures.route";
import { cleanupInboxesRoute } from "./routes/inboxes/cleanup-inboxes.route";
import { createInboxRoute } from "./routes/inboxes/create-inbox.route";
import { createStreamTokenRoute } from "./routes/inboxes/create-stream-token.route";
import { deleteInboxRoute } from "./routes/inboxes/delete-inbox.route";
import { getInboxRoute } from "./routes/inboxes/get-inbox.route";
import { inboxForRunRoute } from "./routes/inboxes/inbox-for-run.route";
import { listInboxesRoute } from "./routes/inboxes/list-inboxes.route";
import { checkMessageLinksRoute } from "./routes/messages/check-message-links.route";
import { deleteMessageRoute } from "./routes/messages/delete-message.route";
import { getAttachmentRoute } from "./routes/messages/get-attachment.route";
import { getMessageBodyRoute } from "./routes/messages/get-message-body.route";
import { getMessageChecksRoute } from "./routes/messages/get-message-checks.route";
import { getMessageRoute } from "./routes/messages/get-message.route";
import { listMessagesRoute } from "./routes/messages/list-messages.route";
import { abuseRoute } from "./routes/meta/abuse.route";
import { docsRoute, mountDocsAssets } from "./routes/meta/docs.route";
import { openApiRoute } from "./routes/meta/openapi.route";
import { mountViewer } from "./routes/meta/viewer.route";
import { getRetentionRoute } from "./routes/retention/get-retention.route";
import { createWebhookRoute } from "./routes/webhooks/create-webhook.route";
import { deleteWebhookRoute } from "./routes/webhooks/delete-webhook.route";
import { getWebhookRoute } from "./routes/webhooks/get-webhook.route";
import { listWebhookAttemptsRoute } from "./routes/webhooks/list-webhook-attempts.route";
import { listWebhooksRoute } from "./routes/webhooks/list-webhooks.route";
import { rotateWebhookSecretRoute } from "./routes/webhooks/rotate-webhook-secret.route";
import { testWebhookRoute } from "./routes/webhooks/test-webhook.route";
import { getUsageRoute } from "./routes/usage/get-usage.route";
import { updateWebhookRoute } from "./routes/webhooks/update-webhook.route";

/** Everything the api service adds to the HTTP listener: public routes, then admin routes. */
export function apiHttpContributions(deps: ApiDeps): HttpContribution[] {
  return [
    {
      document: publicDocument(),
      setup: (app) => {
        mountDocsAssets(app);
        mountViewer(app);
      },
      routes: [
        openApiRoute(),
        docsRoute(),
        abuseRoute(deps),
        checkAuthRoute(deps),
        ensureFixturesRoute(deps),
        inboxForRunRoute(deps),
        cleanupInboxesRoute(deps),
        createInboxRoute(deps),
        listInboxesRoute(deps),
        getInboxRoute(deps),
        deleteInboxRoute(deps),
        createStreamTokenRoute(deps),
        listMessagesRoute(deps),
        getMessageRoute(deps),
        getMessageBodyRoute(deps),
        getMessageChecksRoute(deps),
        checkMessageLinksRoute(deps),
        getAttachmentRoute(deps),
        deleteMessageRoute(deps),
        createDomainRoute(deps),
        listDomainsRoute(deps),
        getDomainRoute(deps),
        verifyDomainRoute(deps),
        deleteDomainRoute(deps),
        createWebhookRoute(deps),
        listWebhooksRoute(deps),
        getWebhookRoute(deps),
        updateWebhookRoute(deps),
        deleteWebhookRoute(deps),
        rotateWebhookSecretRoute(deps),
        testWebhookRoute(deps),
        listWebhookAttemptsRoute(deps),
        getUsageRoute(deps),
        listAuditEventsRoute(deps),
        eraseMessagesRoute(deps),
        getRetentionRoute(deps),
        listArticlesRoute(deps),
        getArticleRoute(deps),
      ],
    },
    {
      document: adminDocument(),
      routes: [
        bootstrapRoute(deps),
        createOrganisationRoute(deps),
        updateOrganisationRoute(deps),
        createProjectRoute(deps),
        updateProjectRoute(deps),
        createApiKeyRoute(deps),
        revokeApiKeyRoute(deps),
        createSmtpCredentialRoute(deps),
        blockRecipientRoute(deps),
      ],
    },
  ];
}
