import { Command } from "commander";
import type { Schemas } from "@mailstop/sdk/source";
import { clientAction, clientCommand, deleteCommand, lines, listCommand } from "./client-command";

type Domain = Schemas["Domain"];

const domainLine = (domain: Domain) => lines([[domain.id, domain.domain, domain.status]]);

/** The domain, the records to publish (while pending) and what the last check missed. */
function describeDomain(domain: Domain): string {
  const out = [domainLine(domain)];
  if (domain.status === "pending") {
    out.push(`publish these DNS records, then run: mailstop domains verify ${domain.id}`);
    out.push(lines(domain.dns_records.map((record) => [`  ${record.type}`, record.name, record.value, ...(record.priority === undefined ? [] : [`priority ${record.priority}`])])));
  }
  if (domain.last_check !== null && !domain.last_check.ok) out.push(`last check: missing ${domain.last_check.missing.join(", ")}: ${domain.last_check.detail}`);
  return out.join("\n");
}

/** `mailstop domains create|list|get|verify|delete` over the SDK's `domains`. */
export function domainsCommand(): Command {
  return new Command("domains")
    .description("claim, verify, show and release custom receiving domains")
    .addCommand(
      clientCommand("create", "claim a domain (pending) and print the DNS records to publish")
        .argument("<domain>", "a domain you control, e.g. mail.example.com")
        .action(clientAction(async (mailstop, _options, name) => show(await mailstop.domains.create(name)))),
    )
    .addCommand(listCommand("list the project's domains", (mailstop, query) => mailstop.domains.list(query), (domains) => domains.map(domainLine).join("\n")))
    .addCommand(
      clientCommand("get", "show a domain, its records and its last check")
        .argument("<id>", "a domain id (dom_…)")
        .action(clientAction(async (mailstop, _options, id) => show(await mailstop.domains.get(id)))),
    )
    .addCommand(
      clientCommand("verify", "look the DNS records up now: verified, or still pending with what is missing (exit 0 either way)")
        .argument("<id>", "a domain id (dom_…)")
        .action(clientAction(async (mailstop, _options, id) => show(await mailstop.domains.verify(id)))),
    )
    .addCommand(deleteCommand("release a domain (refused while inboxes live on it)", ["<id>", "a domain id (dom_…)"], (mailstop, id) => mailstop.domains.delete(id)));
}

const show = (domain: Domain) => ({ json: domain, text: describeDomain(domain) });
