import type { DrillCase } from "../harness/drill";
import { badInputCases } from "./bad-input";
import { diskFullCases } from "./disk-full";
import { kill9Cases } from "./kill9";
import { objectStoreCases } from "./object-store";
import { objectStoreFlakyCases } from "./object-store-flaky";
import { postgresCases } from "./postgres";
import { postgresFailoverCases } from "./postgres-failover";
import { pubsubCases } from "./pubsub";
import { redisCases } from "./redis";
import { sigtermCases } from "./sigterm";
import { webhookCases } from "./webhooks";

/** Every case, in the table's order. */
export const ALL_CASES: readonly DrillCase[] = [
  ...kill9Cases,
  ...redisCases,
  ...postgresCases,
  ...postgresFailoverCases,
  ...objectStoreCases,
  ...objectStoreFlakyCases,
  ...pubsubCases,
  ...sigtermCases,
  ...badInputCases,
  ...webhookCases,
  ...diskFullCases,
];

export const DRILL_IDS = [...new Set(ALL_CASES.map((c) => c.id))];
