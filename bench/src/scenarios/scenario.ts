import type { Row } from "../report";
import type { Lineup } from "../targets/lineup";
import type { Plan } from "./plan";

/** What a scenario runs against and where it puts what it measured. */
export interface ScenarioContext {
  plan: Plan;
  targets: Lineup;
  logDir: string;
  /** The table: a scenario adds its rows as it measures them, so a failure keeps those before it. */
  rows: Row[];
  /** Raw results by key, for the report's details. */
  details: Record<string, unknown>;
}

/** One entry of the scenario table: `--only` names it. */
export interface Scenario<Name extends string = string> {
  name: Name;
  run(ctx: ScenarioContext): Promise<void>;
}
