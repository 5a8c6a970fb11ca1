import { Command, Option } from "commander";
import { type ClientOptions, clientAction, clientCommand, deleteCommand } from "./client-command";
import { type MatchOptions, matchOf, withMatchOptions } from "./match-options";
import { positiveInteger } from "./parse-options";
import { messageLine } from "./wait-output";

interface ListOptions extends ClientOptions, MatchOptions {
  inbox: string;
  limit?: number;
}

/** `mailstop messages list|get|delete` over the SDK's `messages` (the wait is `mailstop wait`). */
export function messagesCommand(): Command {
  return new Command("messages")
    .description("list, read and delete messages (to wait for one, see mailstop wait)")
    .addCommand(
      withMatchOptions(
        clientCommand("list", "list an inbox's messages, newest first (one page), filtered like mailstop wait")
          .requiredOption("--inbox <id|address>", "the inbox: an id (ibx_…) or its address")
          .option("--limit <n>", "how many (1 to 200, default 50)", positiveInteger),
      ).action(
        clientAction(async (mailstop, options: ListOptions) => {
          const page = await mailstop.messages.list({ inbox: options.inbox, ...matchOf(options), ...(options.limit === undefined ? {} : { limit: options.limit }) });
          return { json: page, text: page.data.map(messageLine).join("\n") };
        }),
      ),
    )
    .addCommand(
      clientCommand("get", "print a message's whole body part (text by default); --json prints the message view")
        .argument("<id>", "a message id (msg_…)")
        .addOption(new Option("--format <part>", "the part to print: text, html or raw (the RFC 5322 source)").choices(["text", "html", "raw"]).default("text"))
        .action(
          clientAction(async (mailstop, options: ClientOptions & { format: "text" | "html" | "raw" }, id) => {
            // --json is the view (previews, codes, links, the part's slice); text is the whole part.
            if (options.json === true) return { json: await mailstop.messages.get(id, { format: [options.format] }), text: "" };
            return { json: null, text: await mailstop.messages.body(id, options.format) };
          }),
        ),
    )
    .addCommand(deleteCommand("delete a message (gone from lists and waits at once)", ["<id>", "a message id (msg_…)"], (mailstop, id) => mailstop.messages.delete(id)));
}
