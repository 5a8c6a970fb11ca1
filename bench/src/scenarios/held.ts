import { MB } from "../lib/proc";
import type { Row } from "../report";
import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import type { Plan } from "./plan";
import type { Scenario } from "./scenario";

/** What a held load (waits, streams) reads of the process that holds it. */
export interface HeldRss {
  rssIdleBytes: number;
  rssHeldBytes: number;
}

/** The RSS before the load, for a row's note: `41 MB before`. */
export const mbBefore = (result: HeldRss): string => `${(result.rssIdleBytes / MB).toFixed(0)} MB before`;

/**
 * A held load measured on the monolith, then the same on a split waiter process (`--target
 * waiter`), as a fleet holds them. Rows, each pushed as soon as it is measured: the monolith's
 * server RSS against `ceilingMb`, the load's `more` rows, then the split waiter's RSS. Details
 * under the scenario's name and `<name>.split-waiter`.
 */
export function heldScenario<Name extends string, R extends HeldRss>(
  name: Name,
  held: {
    /** Holds the load on `via` (default the monolith) and reads it. */
    measure(target: MailstopTarget, plan: Plan, via?: ServerProcess): Promise<R>;
    /** What is held, to head the rows: `10,000 held waits`. */
    what(result: R): string;
    ceilingMb: number;
    rssNote(result: R): string;
    more(result: R, what: string): Row[];
    /** What the split waiter's row shows besides RSS, and its note. */
    split: { what: string; note(split: R): string };
  },
): Scenario<Name> {
  return {
    name,
    async run({ plan, targets: { mailstop }, rows, details }) {
      const result = await held.measure(mailstop, plan);
      details[name] = result;
      const what = held.what(result);
      const rssMb = result.rssHeldBytes / MB;
      rows.push({
        scenario: `${what}: server RSS`,
        unit: "MB",
        values: { mailstop: rssMb },
        note: held.rssNote(result),
        target: { text: `≤ ${held.ceilingMb} MB`, pass: rssMb <= held.ceilingMb },
      });
      rows.push(...held.more(result, what));
      const split = await held.measure(mailstop, plan, await mailstop.startWaiter());
      details[`${name}.split-waiter`] = split;
      rows.push({ scenario: `  same on a split waiter process: ${held.split.what}`, unit: "MB", values: { mailstop: split.rssHeldBytes / MB }, note: held.split.note(split) });
    },
  };
}
