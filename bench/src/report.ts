import { TARGET_LABELS, type TargetName } from "./targets/target";

export const COLUMNS: TargetName[] = ["mailstop", "mailstop-dir", "mailstop-embedded", "mailstop-fleet", "ceiling", "floor", "maildev", "postfix"];

/** One line of the table: a figure per server, and mailstop's target when it has one. */
export interface Row {
  scenario: string;
  unit: string;
  values: Partial<Record<TargetName, number | null>>;
  /** Extra figures worth a glance (p99 beside a p50, the ratio to the ceiling …). */
  note?: string;
  target?: { text: string; pass: boolean };
}

export interface Report {
  mode: "full" | "quick";
  started_at: string;
  finished_at: string;
  duration_s: number;
  machine: { cpus: string; cores: number; memory_gb: number; node: string; os: string; load_before: number[]; load_after: number[] };
  commit: string;
  /** What the table should be read with (a comparison server that could not run, and why). */
  notes: string[];
  rows: Row[];
  /** Raw results of every scenario, for whoever wants more than the table. */
  details: Record<string, unknown>;
}

const HIGHER_IS_BETTER = new Set(["msg/s", "req/s"]);

function format(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  if (unit === "MB") return value.toFixed(0);
  if (HIGHER_IS_BETTER.has(unit)) return value >= 100 ? value.toFixed(0) : value.toFixed(1);
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

const verdict = (row: Row) => (row.target ? `${row.target.text}: ${row.target.pass ? "PASS" : "MISS"}` : "");

/** The table as aligned text for the terminal. */
export function renderText(report: Report): string {
  const header = ["scenario", "unit", ...COLUMNS.map((c) => TARGET_LABELS[c]), "target (mailstop)"];
  const lines = report.rows.map((row) => [row.scenario, row.unit, ...COLUMNS.map((c) => format(row.values[c], row.unit)), verdict(row)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i >= 2 && i < 2 + COLUMNS.length ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(line), ...report.notes].join("\n");
}

/** The table as Markdown, with the machine it ran on. */
export function renderMarkdown(report: Report): string {
  const m = report.machine;
  const head = `| scenario | unit | ${COLUMNS.map((c) => TARGET_LABELS[c]).join(" | ")} | target (mailstop) | notes |`;
  const rule = `|---|---|${COLUMNS.map(() => "---:").join("|")}|---|---|`;
  const rows = report.rows.map(
    (row) => `| ${row.scenario} | ${row.unit} | ${COLUMNS.map((c) => format(row.values[c], row.unit)).join(" | ")} | ${verdict(row) || "—"} | ${row.note ?? ""} |`,
  );
  return [
    `Run of ${report.started_at} (${report.mode}, ${report.duration_s.toFixed(0)} s), commit ${report.commit}.`,
    `Machine: ${m.cores} × ${m.cpus}, ${m.memory_gb.toFixed(0)} GB, ${m.os}, Node ${m.node}; load average before ${m.load_before.map((l) => l.toFixed(2)).join(" ")}, after ${m.load_after.map((l) => l.toFixed(2)).join(" ")}.`,
    ...report.notes,
    "",
    head,
    rule,
    ...rows,
    "",
  ].join("\n");
}
