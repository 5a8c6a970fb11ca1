import type { Row } from "./harness/drill";
import { RECONCILE_GRACE_S } from "./harness/target";
import { failed } from "./runner";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function duplicated(row: Row): string {
  const t = row.tally;
  if (!t) return "–";
  if (t.duplicated === 0) return "0";
  const unexplained = t.duplicated - t.duplicatedAfterRetry;
  return unexplained === 0 ? `${t.duplicated} (retry)` : `**${t.duplicated}** (${unexplained} unexplained)`;
}

/** The table: one line per drill and target. */
export function table(rows: Row[]): string {
  const lines = ["| drill | target | sent | 250 | 4xx/other | lost | duplicated | s | notes |", "|---|---|---:|---:|---:|---:|---:|---:|---|"];
  for (const row of rows) {
    const t = row.tally;
    const notes = [...(row.skipped === undefined ? [] : [`skipped: ${row.skipped}`]), ...row.failures.map((f) => `**FAIL**: ${f}`), ...row.notes].join("; ");
    lines.push(
      `| ${cell(row.drill)} | ${row.target} | ${t?.sent ?? "–"} | ${t?.accepted ?? "–"} | ${t?.refusedTries ?? "–"} | ${t ? (t.lost > 0 ? `**${t.lost}**` : "0") : "–"} | ${duplicated(row)} | ${(row.durationMs / 1000).toFixed(0)} | ${cell(notes)} |`,
    );
  }
  return lines.join("\n");
}

/** The whole report: what was run where, the table, and what the columns mean. */
export function report(rows: Row[], options: { mode: string; startedAt: Date; durationMs: number; command: string }): string {
  const failures = rows.filter(failed).length;
  const skipped = rows.filter((row) => row.skipped !== undefined).length;
  return [
    `# Fault drills: ${options.mode}`,
    "",
    `\`${options.command}\` on ${options.startedAt.toISOString()}, ${(options.durationMs / 60_000).toFixed(1)} min, node ${process.version}, ${require("node:os").cpus().length} cores. ` +
      `MAILSTOP_RECONCILE_GRACE_S=${RECONCILE_GRACE_S}, MAILSTOP_JOB_LOCK_MS=10000. ${failures === 0 ? "Every drill passed." : `**${failures} of ${rows.length} failed.**`}${skipped === 0 ? "" : ` ${skipped} skipped (see their notes).`}`,
    "",
    table(rows),
    "",
    "sent: messages the load sent (one transaction each, one in five to two inboxes), retried after every 4xx, refused connection or missing reply as an MTA would, until a 250. " +
      "250: messages that got one. 4xx/other: tries that did not (421, 451, a refused connection, no reply, a 5xx). " +
      "lost: (message, inbox) pairs of a 250 never readable through `GET /v1/messages` after recovery. " +
      "duplicated: pairs readable more than once; `(retry)` when each is a message whose earlier try was cut or answered 4xx after its final dot and then retried (SMTP's own at-least-once).",
    "",
  ].join("\n");
}
