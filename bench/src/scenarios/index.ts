import { arrivalWaitScenario } from "./arrival-wait";
import { checksCostScenario } from "./checks-cost";
import { connectScenario } from "./connect";
import { heldStreamsScenario } from "./held-streams";
import { heldWaitsScenario } from "./held-waits";
import { ingestScenario } from "./ingest";
import { laptopScenario } from "./laptop";
import { limitsCostScenario } from "./limits-cost";
import { metricsCostScenario } from "./metrics-cost";
import { readsScenario } from "./reads";
import type { Scenario } from "./scenario";

/** Every scenario, in the order a run takes them and the table shows them. */
export const SCENARIOS: readonly Scenario[] = [
  laptopScenario,
  ingestScenario,
  connectScenario,
  arrivalWaitScenario,
  heldWaitsScenario,
  heldStreamsScenario,
  readsScenario,
  limitsCostScenario,
  metricsCostScenario,
  checksCostScenario,
];

/** The names `--only` takes. */
export const SCENARIO_NAMES = SCENARIOS.map((scenario) => scenario.name);
