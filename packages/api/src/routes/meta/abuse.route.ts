import { type ApiDeps, metaRoute } from "../../deps";

/** Published takedown commitments, in hours. */
export const TAKEDOWN_HOURS = { acknowledgement: 24, action: 72 } as const;

/**
 * GET /.well-known/service-abuse: who to contact and what this service can and cannot do.
 * It asserts there is no outbound delivery: mail is only ever received and stored.
 */
export const abuseRoute = ({ config }: ApiDeps) => {
  const document = {
    brand: config.brand,
    contact: config.abuseContact,
    region: config.region,
    service: `${config.brand}: hosted test inboxes and an SMTP capture relay that stores mail and never delivers it`,
    outbound_delivery: "none" as const,
    controls: [
      "no outbound delivery path: captured and received mail is stored, never relayed",
      "capture relay requires the project's SMTP credential",
      "receiving-edge recipient blocklist",
      "per-project ingest ceiling refused at SMTP with 452 4.3.1",
      "organisation suspension refuses every API request",
      "messages expire after their inbox's retention",
    ],
    takedown: {
      contact: config.abuseContact,
      acknowledgement_hours: TAKEDOWN_HOURS.acknowledgement,
      action_hours: TAKEDOWN_HOURS.action,
      include: ["the inbox address or message id", "the Message-ID header", "the time received (UTC)", "what the content is and why it is abusive"],
    },
    receiving: { mx_host: config.mxHost, shared_inbox_domain: config.sharedDomain, capture_relay_host: config.captureHost },
  };
  return metaRoute("getAbuseDocument", async () => ({ status: 200, body: document }));
};
