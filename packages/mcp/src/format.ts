import type { Inbox, LinkKind, MessageView } from "./api";
import type { Schemas } from "@mailstop/sdk/source";

/**
 * Tool results are short text an agent can act on: the inbox address, subject, sender, codes,
 * links and a preview of the text, never a whole body (the API's url fetches that).
 */

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function sender(message: MessageView): string {
  if (message.from === null) return "(no sender)";
  return message.from.name ? `${message.from.name} <${message.from.address}>` : message.from.address;
}

export function describeInbox(inbox: Inbox, verb: string): string {
  return [
    `${verb} inbox ${inbox.address} (id ${inbox.id}, ${inbox.message_count} message${inbox.message_count === 1 ? "" : "s"}).`,
    `Send mail to ${inbox.address}, then call wait_for_message with inbox "${inbox.address}".`,
  ].join("\n");
}

function linkLines(message: MessageView): string[] {
  return message.links.map((link) => `  - [${link.kind}] ${link.url}${link.text ? ` ("${oneLine(link.text)}")` : ""}`);
}

/** One message in full, as far as a tool shows one: headers, codes, links, a preview, the checks' statuses. */
export function describeMessage(message: MessageView): string {
  const text = message.body.text;
  const preview = oneLine(text.preview);
  return [
    `Message ${message.id} in inbox ${message.inbox}`,
    `Received: ${message.received_at}`,
    `From: ${sender(message)}`,
    `Subject: ${message.subject || "(no subject)"}`,
    `Codes: ${message.codes.length === 0 ? "none" : message.codes.join(", ")}`,
    `Links: ${message.links.length === 0 ? "none" : ""}`.trimEnd(),
    ...linkLines(message),
    ...(message.attachments.length === 0 ? [] : [`Attachments: ${message.attachments.map((a) => `${a.filename} (${a.content_type}, ${a.size} bytes)`).join(", ")}`]),
    `Preview: ${preview === "" ? "(no text part)" : preview}${text.truncated ? " …" : ""}`,
    describeChecks(message.checks),
  ].join("\n");
}

/** The four checks' statuses in one line (docs/api.md "Message checks"): what an agent asserts on. */
function describeChecks(checks: MessageView["checks"]): string {
  const status = (value: string | null) => value ?? "not checked";
  return `Checks: authentication ${status(checks.authentication)}, html ${status(checks.html)}, links ${checks.links}, spam ${checks.spam}`;
}

/** One line per message of a list (lists carry no previews). */
export function describeList(inbox: string, messages: readonly MessageView[]): string {
  if (messages.length === 0) return `Inbox ${inbox} has no messages. Call wait_for_message to block until one arrives.`;
  const lines = messages.map((m) => {
    const codes = m.codes.length === 0 ? "" : `; codes ${m.codes.join(", ")}`;
    const links = m.links.length === 0 ? "" : `; ${m.links.length} link${m.links.length === 1 ? "" : "s"}`;
    return `- ${m.id} ${m.received_at} from ${sender(m)}: "${m.subject}"${codes}${links}`;
  });
  return [`${messages.length} newest message${messages.length === 1 ? "" : "s"} in inbox ${messages[0]!.inbox}, newest first:`, ...lines].join("\n");
}

export function describeTimeout(result: Schemas["WaitTimeout"]): string {
  return [
    `Timed out after ${result.waited_ms} ms: no message matched in inbox ${result.inbox} (${result.non_matching_arrivals} non-matching arrival${result.non_matching_arrivals === 1 ? "" : "s"}).`,
    `Hint: ${result.hint}`,
  ].join("\n");
}

export function describeCode(message: MessageView): string {
  const [code, ...others] = message.codes;
  return [
    `Code: ${code}`,
    `From message ${message.id} in inbox ${message.inbox}, "${message.subject}" from ${sender(message)}, received ${message.received_at}.`,
    ...(others.length === 0 ? [] : [`Other codes in it: ${others.join(", ")}`]),
  ].join("\n");
}

export function describeLink(message: MessageView, link: Schemas["Link"]): string {
  return [
    `Link (${link.kind}): ${link.url}`,
    `From message ${message.id} in inbox ${message.inbox}, "${message.subject}" from ${sender(message)}, received ${message.received_at}.`,
  ].join("\n");
}

/** The link `get_link` returns: of `kind` when asked, else the first that is not an unsubscribe link. */
export function pickLink(message: MessageView, kind: LinkKind | undefined): Schemas["Link"] | undefined {
  if (kind !== undefined) return message.links.find((link) => link.kind === kind);
  return message.links.find((link) => link.kind !== "unsubscribe") ?? message.links[0];
}
