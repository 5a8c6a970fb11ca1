import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanUpAll, cleanUpOnSignals } from "./harness/cleanup";
import type { Row } from "./harness/drill";
import { startEngines } from "./harness/engines";
import { TARGET_KINDS, type TargetKind } from "./harness/target";
import { say } from "./harness/time";
import { ALL_CASES, DRILL_IDS } from "./drills";
import { report, table } from "./report";
import { RESULTS, failed, runCase } from "./runner";

const USAGE = `pnpm drills [--quick] [--only=<drill,...>] [--targets=<monolith,embedded,fleet>]
drills: ${DRILL_IDS.join(", ")}`;

function parseArgs(argv: string[]): { quick: boolean; only: string[] | null; targets: TargetKind[] } {
  let quick = false;
  let only: string[] | null = null;
  let targets: TargetKind[] = [...TARGET_KINDS];
  for (const arg of argv) {
    const [flag, value] = arg.split("=", 2) as [string, string | undefined];
    if (flag === "--quick") quick = true;
    else if (flag === "--only" && value) only = value.split(",");
    else if (flag === "--targets" && value) targets = value.split(",") as TargetKind[];
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  for (const id of only ?? []) if (!DRILL_IDS.includes(id)) throw new Error(`no drill ${id}\n${USAGE}`);
  for (const target of targets) if (!TARGET_KINDS.includes(target)) throw new Error(`no target ${target}\n${USAGE}`);
  return { quick, only, targets };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const cases = ALL_CASES.filter((c) => (!args.quick || c.quick) && (args.only === null || args.only.includes(c.id)) && args.targets.includes(c.target));
  const startedAt = new Date();
  cleanUpOnSignals();
  say(`${cases.length} drill cases${args.quick ? " (--quick)" : ""}`);
  const rows: Row[] = [];
  try {
    const engines = await startEngines();
    for (const drillCase of cases) rows.push(await runCase(drillCase, engines, args.quick));
  } finally {
    await cleanUpAll();
  }
  const partial = args.only !== null || args.targets.length < TARGET_KINDS.length;
  const mode = args.quick ? "quick" : partial ? "partial" : "full";
  const command = `pnpm drills ${process.argv.slice(2).join(" ")}`.trim();
  const text = report(rows, { mode, startedAt, durationMs: Date.now() - startedAt.getTime(), command });
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, mode === "full" ? "latest.md" : `${mode}.md`);
  writeFileSync(file, text);
  console.log(table(rows));
  say(`written to ${file}`);
  return rows.some(failed) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    await cleanUpAll();
    process.exit(1);
  },
);
