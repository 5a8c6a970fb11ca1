import { Command } from "commander";
import type { Schemas } from "@mailstop/sdk/source";
import { type ClientOptions, clientAction, clientCommand, deleteCommand, lines, listCommand } from "./client-command";
import { booleanWord, commaList, positiveInteger } from "./parse-options";

type Webhook = Schemas["Webhook"];
type WebhookEvent = Schemas["WebhookEvent"];

interface EndpointOptions extends ClientOptions {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

const EVENTS = "message.received, message.captured, message.complaint, domain.verified";

/** One line per endpoint: id, state, url, events. */
const webhookLines = (webhooks: readonly Webhook[]) =>
  lines(webhooks.map((webhook) => [webhook.id, webhook.enabled ? "enabled" : `disabled${webhook.disabled_reason === null ? "" : ` (${webhook.disabled_reason})`}`, webhook.url, webhook.events.join(",")]));

/** The endpoint and its secret: the only time it is shown (create and rotate-secret). */
const withSecret = (webhook: Schemas["WebhookWithSecret"]) => ({ json: webhook, text: `${webhookLines([webhook])}\nsecret (shown once, keep it): ${webhook.secret}` });

/** The fields of a create or update the flags name (the server validates the event names). */
const fields = (options: EndpointOptions) => ({
  ...(options.url === undefined ? {} : { url: options.url }),
  ...(options.events === undefined ? {} : { events: options.events as WebhookEvent[] }),
  ...(options.description === undefined ? {} : { description: options.description }),
  ...(options.enabled === undefined ? {} : { enabled: options.enabled }),
});

/** `mailstop webhooks …` over the SDK's `webhooks`. */
export function webhooksCommand(): Command {
  const byId = (name: string, description: string) => clientCommand(name, description).argument("<id>", "a webhook endpoint id (whk_…)");
  return new Command("webhooks")
    .description("register webhook endpoints, rotate their secrets, test them and read their delivery attempts")
    .addCommand(
      clientCommand("create", "register an endpoint; prints its signing secret (shown this once)")
        .requiredOption("--url <url>", "where deliveries are POSTed")
        .requiredOption("--events <a,b>", `comma-separated: ${EVENTS}`, commaList)
        .option("--description <text>", "a note for people")
        .action(
          clientAction(async (mailstop, options: EndpointOptions & { url: string; events: string[] }) =>
            withSecret(await mailstop.webhooks.create({ ...fields(options), url: options.url, events: options.events as WebhookEvent[] })),
          ),
        ),
    )
    .addCommand(listCommand("list the project's endpoints", (mailstop, query) => mailstop.webhooks.list(query), webhookLines))
    .addCommand(byId("get", "show an endpoint").action(clientAction(async (mailstop, _options, id) => shown(await mailstop.webhooks.get(id)))))
    .addCommand(
      byId("update", "change an endpoint's url, events, description or enabled; absent flags stay as they are")
        .option("--url <url>", "where deliveries are POSTed")
        .option("--events <a,b>", `comma-separated: ${EVENTS}`, commaList)
        .option("--enabled <true|false>", "enable (clears disabled_reason) or disable", booleanWord)
        .option("--description <text>", "a note for people")
        .action(clientAction(async (mailstop, options: EndpointOptions, id) => shown(await mailstop.webhooks.update(id, fields(options))))),
    )
    .addCommand(deleteCommand("delete an endpoint with its queued deliveries and attempt log", ["<id>", "a webhook endpoint id (whk_…)"], (mailstop, id) => mailstop.webhooks.delete(id)))
    .addCommand(
      byId("rotate-secret", "replace the signing secret (the old one keeps signing for 24 h); prints the new one").action(
        clientAction(async (mailstop, _options, id) => withSecret(await mailstop.webhooks.rotateSecret(id))),
      ),
    )
    .addCommand(
      byId("test", "queue a signed webhook.test event to the endpoint").action(
        clientAction(async (mailstop, _options, id) => {
          const queued = await mailstop.webhooks.test(id);
          return { json: queued, text: `queued webhook.test event ${queued.event_id} (see mailstop webhooks attempts ${id})` };
        }),
      ),
    )
    .addCommand(
      byId("attempts", "list the endpoint's delivery attempts, newest first (one page)")
        .option("--limit <n>", "how many (1 to 200, default 50)", positiveInteger)
        .action(
          clientAction(async (mailstop, options: ClientOptions & { limit?: number }, id) => {
            const page = await mailstop.webhooks.attempts(id, options.limit === undefined ? {} : { limit: options.limit });
            const rows = page.data.map((a) => [a.id, a.attempted_at, a.event_type, `attempt ${a.attempt}`, a.status, a.response_status ?? a.error ?? "-"]);
            return { json: page, text: lines(rows) };
          }),
        ),
    );
}

const shown = (webhook: Webhook) => ({ json: webhook, text: webhookLines([webhook]) });
