import { randomBytes } from "node:crypto";
import { RECONCILE_MIN_AGE_S } from "@mailstop/core";
import type { Engines } from "./engines";
import { Load, type LoadOptions, type Message } from "./load";
import type { ServiceName } from "./service";
import { type Tally, tally } from "./tally";
import type { Inbox, Target, TargetKind, TargetOptions } from "./target";
import { say, sleep } from "./time";

/** One line of the table: a drill on a target. */
export interface Row {
  drill: string;
  target: TargetKind;
  tally?: Tally;
  notes: string[];
  /** The drill's own assertions that failed (a 250 while the store was down, a slow exit…). */
  failures: string[];
  durationMs: number;
  /** Why the case did not run here (a mount this machine refuses): shown in the table, not a failure. */
  skipped?: string;
}

/** Thrown by a case's `prepare` where this machine cannot give it what it needs: the row says why. */
export class SkipCase extends Error {}

/** What a case had prepared before its target started, released once the target is stopped. */
export interface Prepared {
  /** The embedded target's MAILSTOP_DATA_DIR. */
  dataDir?: string;
  release(): Promise<void>;
}

/** A drill on one target: `run` does the harm and the checks; the runner starts and stops the target. */
export interface DrillCase {
  /** The drill's id, for --only (several cases share one: `kill9` on each service). */
  id: string;
  /** Its name in the table. */
  drill: string;
  target: TargetKind;
  /** Part of `--quick`. */
  quick: boolean;
  run(ctx: DrillContext): Promise<void>;
  /** MAILSTOP_RECONCILE_GRACE_S of its target, when not the drills' usual RECONCILE_GRACE_S. */
  graceS?: number;
  /** How its target is set up, when not as usual (a second SMTP edge, the object store through the fault proxy, settings). */
  options?: Omit<TargetOptions, "graceS">;
  /** The case's deadline; past it the case fails and the run goes on. Default 6 min. */
  timeoutMs?: number;
  /** Runs before the target starts (a small file system for its data); may throw SkipCase. */
  prepare?(engines: Engines): Promise<Prepared>;
}

/** One case of a drill on each of `targets`, the one on `quickOn` part of `--quick`. */
export function casesOn(targets: TargetKind[], quickOn: TargetKind | null, drill: Omit<DrillCase, "target" | "quick">): DrillCase[] {
  return targets.map((target) => ({ ...drill, target, quick: target === quickOn }));
}

/**
 * One case of a drill on each of `services` of `target`, named after it: `kill -9 parser`, or
 * `kill -9 (monolith)` for `all`.
 */
export function serviceCases(
  drill: { id: string; name: string; run(ctx: DrillContext, service: ServiceName): Promise<void> },
  target: TargetKind,
  services: ServiceName[],
  quick: (service: ServiceName) => boolean,
): DrillCase[] {
  return services.map((service) => ({
    id: drill.id,
    drill: service === "all" ? `${drill.name} (monolith)` : `${drill.name} ${service}`,
    target,
    quick: quick(service),
    run: (ctx) => drill.run(ctx, service),
  }));
}

/**
 * How long a drill waits, after recovery, for every accepted message to be readable: about
 * one and a half grace periods is when the reconciler has requeued everything (docs/decisions.md
 * "The accept ledger: never lose a 250"), plus a minute for the backlog to be parsed on a busy
 * machine.
 */
export const settleMs = (target: Target) => 3 * Math.max(target.graceS, RECONCILE_MIN_AGE_S) * 1000 + 60_000;

export class DrillContext {
  private readonly loads: Load[] = [];
  private sequence = 0;
  private readonly run = randomBytes(3).toString("hex");

  constructor(
    readonly engines: Engines,
    readonly target: Target,
    readonly row: Row,
    readonly quick: boolean,
  ) {}

  note(text: string): void {
    this.row.notes.push(text);
  }

  fail(text: string): void {
    say(`FAIL ${this.row.drill} on ${this.row.target}: ${text}`);
    this.row.failures.push(text);
  }

  check(condition: boolean, failure: string): boolean {
    if (!condition) this.fail(failure);
    return condition;
  }

  async inboxes(count: number, label = "load"): Promise<Inbox[]> {
    return Promise.all(Array.from({ length: count }, (_, i) => this.target.createInbox(`${label}-${this.run}-${i}`)));
  }

  /** Background ingest over SMTP: 12 senders, retrying as MTAs do, spread over the target's SMTP edges. */
  load(inboxes: Inbox[], options: Partial<LoadOptions> = {}): Load {
    const { edges } = this.target;
    const load = new Load({ port: (sender) => edges[sender % edges.length]!.ports.smtp!, inboxes, concurrency: 12, pauseMs: 0, label: `${this.row.target}-${this.run}`, ...options });
    this.loads.push(load);
    return load;
  }

  /** A message of the drill's own (a wait's match, a stream's arrival), sent with `deliver`. */
  message(inboxes: Inbox[], subject: string): Message {
    const seq = ++this.sequence;
    return { seq, messageId: `${this.row.target}.${this.run}.own${seq}@drills.test`, subject: `${subject} ${this.run}-${seq}`, inboxes, attempts: [] };
  }

  /** Fails the drill unless the load gets `count` more 250s within `ms`: ingest works again. */
  async flowing(load: Load, after: string, count = 20, ms = 60_000): Promise<void> {
    const started = Date.now();
    const ok = await load.progress(count, ms);
    say(`${this.row.drill} on ${this.row.target}: ${ok ? "" : "no "}ingest after ${after} (${load.acceptedCount()} accepted so far)`);
    if (ok) this.note(`ingest again ${((Date.now() - started) / 1000).toFixed(1)} s after ${after}`);
    else this.fail(`fewer than ${count} messages accepted within ${ms / 1000} s after ${after}`);
  }

  /**
   * Lets the load run on for a while (a few seconds; one with --quick): the fault strikes into,
   * and recovery is followed by, sustained ingest rather than its first messages.
   */
  async ingest(): Promise<void> {
    await sleep(this.quick ? 1_000 : 3_000);
  }

  /** Counts lost and duplicated over every message given (the loads' and the drill's own). */
  async tally(messages: Message[]): Promise<Tally> {
    const started = Date.now();
    const result = await tally(this.target, messages, settleMs(this.target));
    this.row.tally = result;
    say(`${this.row.drill} on ${this.row.target}: counted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (result.readableAfterMs !== null) this.note(`all readable ${(result.readableAfterMs / 1000).toFixed(1)} s after the load ended`);
    for (const line of result.details) say(`${this.row.drill} on ${this.row.target}: ${line.slice(0, 1500)}`);
    return result;
  }

  /** Stops every load at once (the runner, when a case failed or ran out of time). */
  async abortLoads(): Promise<void> {
    await Promise.all(this.loads.map((load) => load.abort()));
  }
}
