import type { MessageMatch, MessageView, Schemas } from "@mailstop/sdk/source";
import { parseDuration } from "./parse-options";

type LinkKind = Schemas["LinkKind"];
const LINK_KINDS: readonly LinkKind[] = ["verify", "sign_in", "unsubscribe", "reset_password", "other"];

/** What `mailstop wait --print` prints of the message it found. */
export type PrintSpec = { what: "summary" } | { what: "json" } | { what: "code" } | { what: "link"; kind?: LinkKind };

/** `code`, `json`, `link` or `link:<kind>`; absent prints a summary. */
export function parsePrint(value: string | undefined): PrintSpec {
  if (value === undefined) return { what: "summary" };
  if (value === "code" || value === "json") return { what: value };
  const [what, kind, ...rest] = value.split(":");
  if (what === "link" && rest.length === 0) {
    if (kind === undefined) return { what: "link" };
    if ((LINK_KINDS as readonly string[]).includes(kind)) return { what: "link", kind: kind as LinkKind };
    throw new Error(`unknown link kind "${kind}": one of ${LINK_KINDS.join(", ")}`);
  }
  throw new Error(`--print takes code, link, link:<kind> or json, not "${value}"`);
}

/**
 * A timeout as `60s`, `500ms`, `2m` or a bare number of seconds, in milliseconds. The server
 * refuses more than 285 s; that refusal is its to make (a 400 naming the field).
 */
export function parseTimeout(value: string): number {
  return parseDuration(value, "--timeout", ["ms", "s", "m"], "60s, 500ms or 2m");
}

/**
 * The predicates `--print` implies: printing a code waits for a message that has one, printing
 * a link of a kind for one with such a link, so an earlier message without it is not taken.
 */
export function impliedMatch(print: PrintSpec): MessageMatch {
  if (print.what === "code") return { has_code: true };
  if (print.what === "link" && print.kind !== undefined) return { has_link_kind: print.kind };
  return {};
}

/** The text printed on stdout for the found message, or an error when it lacks what was asked. */
export function render(message: MessageView, print: PrintSpec): string {
  switch (print.what) {
    case "json":
      return JSON.stringify(message, null, 2);
    case "code": {
      const code = message.codes[0];
      if (code === undefined) throw new Error(`message ${message.id} has no code`);
      return code;
    }
    case "link": {
      const link = message.links.find((candidate) => print.kind === undefined || candidate.kind === print.kind);
      if (link === undefined) throw new Error(`message ${message.id} has no ${print.kind === undefined ? "" : `${print.kind} `}link`);
      return link.url;
    }
    case "summary": {
      const lines = [messageLine(message)];
      if (message.codes.length > 0) lines.push(`codes: ${message.codes.join(" ")}`);
      for (const link of message.links) lines.push(`link (${link.kind}): ${link.url}`);
      return lines.join("\n");
    }
  }
}

/** One line for a message: id, time, sender, subject (the wait's summary, `messages list`). */
export function messageLine(message: Pick<MessageView, "id" | "received_at" | "from" | "subject">): string {
  const from = message.from === null ? "(no sender)" : message.from.address;
  return `${message.id}  ${message.received_at}  ${from}  ${message.subject}`;
}
