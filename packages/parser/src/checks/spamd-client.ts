import { connect } from "node:net";

// A client of spamd's protocol (SPAMC/1.5, the one spamc speaks), written here rather than
// taken from npm (docs/decisions.md "Message checks"): the registry, as this project reaches
// it, has no maintained one. `spamc` 0.0.5 is a fork of coxeh/node-spamc (callbacks, no types,
// no deadline over the whole exchange, no bound on what it reads), `node-spamd` and
// `spamd-client` are older still, `spamassassin-client` is not there, and
// `haraka-plugin-spamassassin` is a Haraka plugin, not a library. Two commands are needed,
// REPORT (the verdict, and the rules with their scores and descriptions) and PING; with the
// bounds below that is this file.

/** The whole exchange with spamd, from connect to its last byte, for one message (docs/decisions.md "Message checks"). */
export const SPAMD_DEADLINE_MS = 10_000;
/**
 * At most this much of a raw source is sent: spamc's default `--max-size` (500 KB), the size
 * spamd's users expect it to score. A larger source is cut after its last whole line within
 * it, so the headers and the start of the body are scored, which is where the rules look.
 */
export const SPAMD_MAX_MESSAGE_BYTES = 500 * 1024;
/** A REPORT answer is a few KiB (the rules and a content preview); a longer one is refused. */
export const SPAMD_MAX_REPLY_BYTES = 256 * 1024;

export interface SpamdAddress {
  host: string;
  port: number;
}

export interface SpamdRule {
  name: string;
  score: number;
  /** As spamd's report shows it, its area first where it has one (`BODY: Generic Test for Unsolicited Bulk Email`). */
  description: string;
}

export interface SpamdReport {
  isSpam: boolean;
  score: number;
  threshold: number;
  rules: SpamdRule[];
}

/** spamd could not be reached, did not answer in time, or answered something this client cannot read. */
export class SpamdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpamdError";
  }
}

/**
 * Sends `request` and reads spamd's answer up to the end of the connection (spamd closes it
 * once it has answered; the answer's length is checked by readAnswer), within `deadlineMs` from the connect on and at most
 * SPAMD_MAX_REPLY_BYTES. Rejects with a SpamdError; the socket is always destroyed.
 */
function exchange(address: SpamdAddress, request: Buffer, deadlineMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = connect({ host: address.host, port: address.port });
    const finish = (error: SpamdError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error === null) resolve(Buffer.concat(chunks, size));
      else reject(error);
    };
    const timer = setTimeout(() => finish(new SpamdError(`spamd at ${address.host}:${address.port} did not answer within ${deadlineMs} ms`)), Math.max(0, deadlineMs));
    // Written, not ended: spamd reads Content-length bytes and needs no half-close, which a
    // proxy between the two may not pass on (it would close the connection before the answer).
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > SPAMD_MAX_REPLY_BYTES) return finish(new SpamdError(`spamd's answer is longer than ${SPAMD_MAX_REPLY_BYTES} bytes`));
      chunks.push(chunk);
    });
    socket.on("end", () => finish(null));
    socket.on("error", (error) => finish(new SpamdError(`spamd at ${address.host}:${address.port}: ${error.message}`)));
    socket.on("close", () => finish(new SpamdError("spamd closed the connection before answering")));
  });
}

const STATUS_LINE = /^SPAMD\/\d+\.\d+ +(\d+) +(.*)$/;
const SPAM_HEADER = /^(True|False|Yes|No) *; *(-?\d+(?:\.\d+)?) *\/ *(-?\d+(?:\.\d+)?)$/i;

/** spamd's answer split into its status, headers and body; a status other than 0 (EX_OK) is a SpamdError. */
function readAnswer(answer: Buffer): { headers: Map<string, string>; body: Buffer } {
  const end = answer.indexOf("\r\n\r\n");
  const head = (end === -1 ? answer : answer.subarray(0, end)).toString("latin1").split("\r\n");
  const body = end === -1 ? Buffer.alloc(0) : answer.subarray(end + 4);
  const status = STATUS_LINE.exec(head[0] ?? "");
  if (status === null) throw new SpamdError(`spamd answered something other than SPAMD/1.x: ${JSON.stringify((head[0] ?? "").slice(0, 80))}`);
  if (status[1] !== "0") throw new SpamdError(`spamd answered ${status[1]} ${status[2]!.trim()}`);
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = headers.get("content-length");
  if (length !== undefined && (!/^\d+$/.test(length) || body.length < Number(length))) throw new SpamdError(`spamd's answer ended before its Content-length (${length}; ${body.length} bytes came)`);
  return { headers, body: length === undefined ? body : body.subarray(0, Number(length)) };
}

// The report's summary (PerMsgStatus.pm): one line per rule, sprintf("%4s %-22s %s%s") of its
// score, name, area and description, the description wrapped onto lines indented by 28 spaces,
// then the rule's evidence in [brackets]. The table starts after its "---- ----" rule (the
// heading above it is translated in some locales) and ends at the first blank line.
const RULE_LINE = /^ {0,4}(-?\d+(?:\.\d+)?) +(\S+)(?: +(.*))?$/;
const TABLE_RULE = /^-{4} -{4,} -{4,}\s*$/;

/** The rules of a REPORT body: name, score and description of each rule that hit. */
export function parseReportRules(report: string): SpamdRule[] {
  const rules: SpamdRule[] = [];
  let inTable = false;
  for (const line of report.split(/\r?\n/)) {
    if (!inTable) {
      inTable = TABLE_RULE.test(line);
      continue;
    }
    if (line.trim() === "") {
      if (rules.length > 0) break;
      continue;
    }
    const rule = RULE_LINE.exec(line);
    if (rule !== null) {
      // + 0: "-0.0" (a tiny negative score, rounded) is 0, as JSON would store it anyway.
      rules.push({ name: rule[2]!, score: Number(rule[1]) + 0, description: (rule[3] ?? "").trim() });
      continue;
    }
    const text = line.trim();
    const last = rules.at(-1);
    // Evidence ([URIs: example.com]) is not part of the description.
    if (last === undefined || text.startsWith("[")) continue;
    last.description = last.description === "" ? text : `${last.description} ${text}`;
  }
  return rules;
}

/** A REPORT answer read: its verdict, score and threshold from the `Spam` header, the rules from its body. */
export function parseReportAnswer(answer: Buffer): SpamdReport {
  const { headers, body } = readAnswer(answer);
  const spam = SPAM_HEADER.exec(headers.get("spam") ?? "");
  if (spam === null) throw new SpamdError(`spamd's answer has no Spam header that reads "True ; score / threshold": ${JSON.stringify(headers.get("spam") ?? null)}`);
  const verdict = spam[1]!.toLowerCase();
  return { isSpam: verdict === "true" || verdict === "yes", score: Number(spam[2]), threshold: Number(spam[3]), rules: parseReportRules(body.toString("utf8")) };
}

/**
 * The first SPAMD_MAX_MESSAGE_BYTES of `message`: all of it when it fits, else up to the end
 * of its last whole line within them.
 */
export function spamdPortion(message: Buffer): Buffer {
  if (message.length <= SPAMD_MAX_MESSAGE_BYTES) return message;
  const cut = message.lastIndexOf(0x0a, SPAMD_MAX_MESSAGE_BYTES - 1);
  return message.subarray(0, cut === -1 ? SPAMD_MAX_MESSAGE_BYTES : cut + 1);
}

/**
 * Asks spamd to REPORT on `message` (cut to SPAMD_MAX_MESSAGE_BYTES, see spamdPortion), within
 * `deadlineMs`. Rejects with a SpamdError when spamd cannot be reached, does not answer in
 * time, or answers anything but a report.
 */
export async function spamdReport(address: SpamdAddress, message: Buffer, deadlineMs = SPAMD_DEADLINE_MS): Promise<SpamdReport> {
  const sent = spamdPortion(message);
  const request = Buffer.concat([Buffer.from(`REPORT SPAMC/1.5\r\nContent-length: ${sent.length}\r\n\r\n`, "latin1"), sent]);
  return parseReportAnswer(await exchange(address, request, deadlineMs));
}

/** Resolves once spamd answers PING with PONG, within `deadlineMs`; rejects with a SpamdError otherwise. */
export async function spamdPing(address: SpamdAddress, deadlineMs = SPAMD_DEADLINE_MS): Promise<void> {
  const answer = (await exchange(address, Buffer.from("PING SPAMC/1.5\r\n\r\n", "latin1"), deadlineMs)).toString("latin1");
  if (!/^SPAMD\/\d+\.\d+ +0 +PONG\r?\n/.test(answer)) throw new SpamdError(`spamd did not answer PONG: ${JSON.stringify(answer.slice(0, 80))}`);
}
