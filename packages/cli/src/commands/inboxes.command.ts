import { randomBytes } from "node:crypto";
import { Command } from "commander";
import type { Inbox } from "@mailstop/sdk/source";
import { type ClientOptions, argumentCommand, clientAction, clientCommand, deleteCommand, lines, listCommand } from "./client-command";
import { parseRetention } from "./parse-options";

interface CreateOptions extends ClientOptions {
  tag?: string;
  domain?: string;
  retention?: string;
}

const messages = (count: number) => `${count} message${count === 1 ? "" : "s"}`;

/** One line per inbox: id, address, message count, tag. */
const inboxLines = (inboxes: readonly Inbox[]) => lines(inboxes.map((inbox) => [inbox.id, inbox.address, messages(inbox.message_count), inbox.tag]));

/** The argument naming one inbox. */
const INBOX: [string, string] = ["<id|address>", "an inbox id (ibx_…) or its address"];

/** A tag for `inboxes create` without one: unique, so two runs never share an inbox. */
const freshTag = () => `cli-${randomBytes(5).toString("hex")}`;

/** `mailstop inboxes create|list|get|delete` over the SDK's `inboxes`. */
export function inboxesCommand(): Command {
  return new Command("inboxes")
    .description("create, list, show and delete inboxes")
    .addCommand(
      clientCommand("create", "create an inbox (the same tag gives the same inbox); prints its id and address")
        .option("--tag <tag>", "dot-separated segments of a-z, 0-9, - and _ (default: a fresh unique tag)")
        .option("--domain <domain>", "a verified domain of the project (default: the shared domain)")
        .option("--retention <duration>", "how long its messages are kept: 1d, 12h, 3600 (default 1d)")
        .action(
          clientAction(async (mailstop, options: CreateOptions) => {
            const inbox = await mailstop.inboxes.create({
              tag: options.tag ?? freshTag(),
              ...(options.domain === undefined ? {} : { domain: options.domain }),
              ...(options.retention === undefined ? {} : { retention_seconds: parseRetention(options.retention) }),
            });
            return { json: inbox, text: inboxLines([inbox]) };
          }),
        ),
    )
    .addCommand(
      argumentCommand(
        "capture-address",
        "print the capture inbox the relay files mail to <recipient> under (the address to wait on)",
        ["<recipient>", "the address your application sent to through the capture relay"],
        async (mailstop, recipient) => ({ recipient, address: await mailstop.inboxes.captureAddressOf(recipient) }),
        (capture) => capture.address,
      ),
    )
    .addCommand(listCommand("list the project's inboxes", (mailstop, query) => mailstop.inboxes.list(query), inboxLines))
    .addCommand(argumentCommand("get", "show one inbox", INBOX, (mailstop, id) => mailstop.inboxes.get(id), (inbox) => inboxLines([inbox])))
    .addCommand(
      deleteCommand(
        "delete an inbox with all its messages",
        INBOX,
        (mailstop, id) => mailstop.inboxes.delete(id),
        (deleted) => `deleted ${deleted.id} (${messages(deleted.messages_deleted)})`,
      ),
    );
}
