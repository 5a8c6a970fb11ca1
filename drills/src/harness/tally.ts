import { RECONCILE_MIN_AGE_S } from "@mailstop/core";
import { type Answer, read } from "./api";
import { type Message, accepted } from "./load";
import type { Target } from "./target";
import { say, sleep, until } from "./time";

/** What a drill's messages became, counted through the API. */
export interface Tally {
  /** Messages the load tried to send (each a transaction, retried until a 250 or given up). */
  sent: number;
  /** Messages that got a 250. */
  accepted: number;
  /** Tries that ended without a 250: a 4xx or 5xx, a refused connection, no reply. */
  refusedTries: number;
  /** (message, inbox) pairs of a 250 never readable: must be 0. */
  lost: number;
  /** (message, inbox) pairs readable more than once. */
  duplicated: number;
  /** Of those, pairs whose message had a try answered 4xx (or not at all) after its final dot, then a retry: SMTP's own duplicate. */
  duplicatedAfterRetry: number;
  /** Pairs of messages that never got a 250 but are readable (a try after its dot went unanswered or 4xx). */
  storedWithout250: number;
  /** How long after the count began every accepted pair was readable (null: never, within the settle time). */
  readableAfterMs: number | null;
  /** Diagnosis lines for lost and unexplained duplicated pairs. */
  details: string[];
}

/** `Message-ID` as the view shows it, without angle brackets. */
const bare = (id: string | null | undefined) => (id ?? "").replace(/^<|>$/g, "");

/** How many copies of each Message-ID each inbox holds, through GET /v1/messages (pages of 200). */
async function copiesByInbox(target: Target, inboxIds: string[]): Promise<Map<string, Map<string, number>>> {
  const result = new Map<string, Map<string, number>>();
  for (const inbox of inboxIds) {
    const copies = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const query: URLSearchParams = new URLSearchParams({ inbox, limit: "200", ...(cursor ? { cursor } : {}) });
      const page: Answer<{ data: Array<{ message_id: string | null }>; next_cursor: string | null }> = await read<{ data: Array<{ message_id: string | null }>; next_cursor: string | null }>(target.apiUrl, target.apiKey, `/v1/messages?${query}`);
      if (page.status !== 200) throw new Error(`listing ${inbox}: ${page.status} ${JSON.stringify(page.body).slice(0, 300)}`);
      for (const message of page.body.data) copies.set(bare(message.message_id), (copies.get(bare(message.message_id)) ?? 0) + 1);
      cursor = page.body.next_cursor;
    } while (cursor);
    result.set(inbox, copies);
  }
  return result;
}

/** A retry after a try the server may have kept: the second copy SMTP allows. */
const retriedAfterUncertainTry = (message: Message) => message.attempts.some((a) => a.afterDot && a.code !== 250);

/**
 * Waits until every (message, inbox) pair of a 250 is readable, or `settleMs` passes, then
 * until the accept ledger has no open row (every transaction parsed or refused for good) and
 * counts again: a late copy from a requeue shows up as a duplicate. On PGlite the ledger is out
 * of reach; two reconciler periods are waited instead.
 */
export async function tally(target: Target, messages: Message[], settleMs: number): Promise<Tally> {
  const inboxIds = [...new Set(messages.flatMap((m) => m.inboxes.map((i) => i.id)))];
  const expected = messages.filter(accepted).flatMap((m) => m.inboxes.map((inbox) => ({ message: m, inbox: inbox.id })));
  let copies = new Map<string, Map<string, number>>();
  const started = Date.now();
  let readableAfterMs: number | null = null;
  const missing = () => expected.filter(({ message, inbox }) => !copies.get(inbox)?.get(message.messageId));
  await until(
    "every accepted message to be readable",
    async () => {
      copies = await copiesByInbox(target, inboxIds).catch((error: Error) => (say(`tally: ${error.message}`), copies));
      return missing().length === 0;
    },
    settleMs,
    500,
  ).then(
    () => (readableAfterMs = Date.now() - started),
    () => undefined,
  );
  const ledgerDrained = await until(
    "the accept ledger to have no open row",
    async () => {
      const open = await target.openLedgerRows().catch(() => -1);
      return open === 0 || open === null;
    },
    settleMs,
    500,
  ).then(
    () => true,
    () => false,
  );
  // The reconciler never takes a row younger than RECONCILE_MIN_AGE_S, whatever the grace.
  if ((await target.openLedgerRows().catch(() => null)) === null) await sleep(2 * Math.max(target.graceS, RECONCILE_MIN_AGE_S) * 1000 + 2_000);
  copies = await copiesByInbox(target, inboxIds);

  const details: string[] = [];
  if (!ledgerDrained) details.push(`accept ledger still had ${await target.openLedgerRows().catch(() => "?")} open rows after ${settleMs / 1000} s`);
  const lost = missing();
  for (const { message, inbox } of lost.slice(0, 10)) {
    const transactions = message.attempts.filter((a) => a.transaction).map((a) => a.transaction!);
    const rows = await Promise.all(transactions.map((t) => target.ledgerRow(t).catch((e: Error) => e.message)));
    details.push(`LOST ${message.messageId} in ${inbox}: transactions ${transactions.join(",")}; ledger ${JSON.stringify(rows)}; tries ${JSON.stringify(message.attempts)}`);
  }
  let duplicated = 0;
  let duplicatedAfterRetry = 0;
  let storedWithout250 = 0;
  for (const message of messages) {
    for (const inbox of message.inboxes) {
      const count = copies.get(inbox.id)?.get(message.messageId) ?? 0;
      if (count > 0 && !accepted(message)) storedWithout250 += 1;
      if (count <= 1) continue;
      duplicated += 1;
      if (retriedAfterUncertainTry(message)) {
        duplicatedAfterRetry += 1;
        if (duplicatedAfterRetry <= 3) details.push(`duplicated after a retry (explained) ${message.messageId} in ${inbox.id}: ${count} copies; tries ${JSON.stringify(message.attempts)}; copies ${JSON.stringify(await target.copiesOf(message.messageId).catch((e: Error) => e.message))}`);
      } else details.push(`DUPLICATED ${message.messageId} in ${inbox.id}: ${count} copies; tries ${JSON.stringify(message.attempts)}; copies ${JSON.stringify(await target.copiesOf(message.messageId).catch((e: Error) => e.message))}`);
    }
  }
  return {
    sent: messages.length,
    accepted: messages.filter(accepted).length,
    refusedTries: messages.reduce((n, m) => n + m.attempts.filter((a) => a.code !== 250).length, 0),
    lost: lost.length,
    duplicated,
    duplicatedAfterRetry,
    storedWithout250,
    readableAfterMs,
    details,
  };
}
