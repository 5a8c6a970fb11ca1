import { log } from "./lib/log";
import type { Scenario, ScenarioContext } from "./scenarios/scenario";

/**
 * Runs the scenarios of `table` that `only` names, in the table's order, each timed on stderr.
 * What one throws is kept in `errors` (the run then exits non-zero) and the run goes on.
 */
export async function runScenarios(table: readonly Scenario[], only: ReadonlySet<string>, ctx: ScenarioContext, errors: string[]): Promise<void> {
  for (const scenario of table) {
    if (!only.has(scenario.name)) continue;
    const t0 = performance.now();
    log(`${scenario.name} …`);
    try {
      await scenario.run(ctx);
      log(`${scenario.name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (error) {
      errors.push(`${scenario.name}: ${error instanceof Error ? error.stack : String(error)}`);
      log(`${scenario.name} FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
