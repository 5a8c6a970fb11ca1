import { SCENARIO_NAMES } from "./scenarios/index";
import { START_ORDER } from "./targets/lineup";

/** The command line of `pnpm bench` (main.ts's header lists it). */
export interface Args {
  /** Each scenario briefly, to check that it runs (CI). */
  quick: boolean;
  /** V8 CPU profiles of the mailstop processes, under results/profiles. */
  profile: boolean;
  /** Leaves mailstop's database in place, for EXPLAIN ANALYZE. */
  keepDatabase: boolean;
  /** The scenarios to run (`--only=`; all by default). */
  only: Set<string>;
  /** The columns to compare (`--targets=`; all by default). */
  targets: Set<string>;
  /** `--only` or `--targets` was given: the run's table must not replace the full run's. */
  narrowed: boolean;
}

/** Flags other than these are ignored; an unknown scenario name is an error. */
export function parseArgs(argv: string[]): Args {
  const quick = argv.includes("--quick");
  const profile = argv.includes("--profile");
  const keepDatabase = argv.includes("--keep-database");
  const only = argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
  for (const name of only ?? []) if (!SCENARIO_NAMES.includes(name)) throw new Error(`unknown scenario ${name}; one of ${SCENARIO_NAMES.join(", ")}`);
  const targets = argv.find((a) => a.startsWith("--targets="))?.slice("--targets=".length).split(",");
  const narrowed = argv.some((a) => a.startsWith("--only=") || a.startsWith("--targets="));
  return { quick, profile, keepDatabase, only: new Set<string>(only ?? SCENARIO_NAMES), targets: new Set<string>(targets ?? START_ORDER), narrowed };
}
