import { type Db, type MessageRecord, listReadableMessages } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { Bus } from "@mailstop/messaging";

/** Rows per page of a re-check's read. */
const PAGE_SIZE = 100;

/** A blocking wait as a re-check sees it. */
export interface HeldWait {
  /** Messages received before this (ms since the epoch) are not this wait's concern. */
  readonly since: number;
  /** Takes the inbox's messages stored since the earliest of its held waits began, newest first. */
  recheck(stored: readonly MessageRecord[]): void;
}

/**
 * The blocking waits a waiter holds, by inbox, for the one moment their arrivals may have been
 * lost: the bus listens again after a drop, and what was published in between reached no
 * one. Each inbox with held waits is then read once (its messages since its earliest wait
 * began), not once per wait, and each wait takes what it reads as arrivals, checked as every
 * arrival is (one shared query per message and match).
 */
export class HeldWaits {
  private readonly inboxes = new Map<string, { projectId: string; waits: Set<HeldWait> }>();

  constructor(
    private readonly db: Db,
    bus: Bus,
    private readonly logger: Logger,
  ) {
    bus.onResubscribed(() => void this.recheckAll());
  }

  /** The waits held now (the metrics' gauge, read when scraped). */
  get size(): number {
    let count = 0;
    for (const inbox of this.inboxes.values()) count += inbox.waits.size;
    return count;
  }

  /** Holds `wait` on the inbox until the returned function is called. */
  hold(projectId: string, inboxId: string, wait: HeldWait): () => void {
    let inbox = this.inboxes.get(inboxId);
    if (inbox === undefined) {
      inbox = { projectId, waits: new Set() };
      this.inboxes.set(inboxId, inbox);
    }
    inbox.waits.add(wait);
    const held = inbox;
    return () => {
      if (held.waits.delete(wait) && held.waits.size === 0 && this.inboxes.get(inboxId) === held) this.inboxes.delete(inboxId);
    };
  }

  private async recheckAll(): Promise<void> {
    await Promise.all([...this.inboxes].map(([inboxId, { projectId, waits }]) => this.recheckInbox(projectId, inboxId, [...waits])));
  }

  private async recheckInbox(projectId: string, inboxId: string, waits: readonly HeldWait[]): Promise<void> {
    let since = Number.POSITIVE_INFINITY;
    for (const wait of waits) since = Math.min(since, wait.since);
    try {
      const stored = await this.storedSince(projectId, inboxId, new Date(since));
      for (const wait of waits) wait.recheck(stored);
    } catch (error) {
      this.logger.warn({ err: error, inbox_id: inboxId }, "re-check of held waits after the arrival bus resubscribed failed; they wait on for new arrivals");
    }
  }

  /** The inbox's readable messages received since `since`, newest first, every page. */
  private async storedSince(projectId: string, inboxId: string, since: Date): Promise<MessageRecord[]> {
    const stored: MessageRecord[] = [];
    for (;;) {
      const page = await listReadableMessages(this.db, projectId, { inboxId, since }, { beforeSeq: stored.at(-1)?.seq ?? null, limit: PAGE_SIZE });
      stored.push(...page);
      if (page.length < PAGE_SIZE) return stored;
    }
  }
}
