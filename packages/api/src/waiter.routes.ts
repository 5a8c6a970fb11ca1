import { type HttpContribution, heldRoute } from "@mailstop/http";
import { publicDocument } from "@mailstop/openapi";
import type { WaiterDeps } from "./deps";
import { waitRoute } from "./routes/messages/wait.route";
import { streamInboxEventsRoute } from "./routes/stream/stream-inbox-events.route";
import { ArrivalChecks } from "./waits/arrival-checks";

/**
 * What the waiter service adds to the HTTP listener: the blocking wait and the event stream,
 * both held routes (served below express's router: a waiter holds thousands of each). Called
 * once per waiter, it builds what that waiter's waits share. A file of its own, which the
 * waiter module requires without the rest of the package (the API's routes, their content
 * and webhook libraries): a waiter loads only what it serves.
 */
export function waiterHttpContributions(deps: WaiterDeps): HttpContribution[] {
  const checks = new ArrivalChecks(deps.db);
  return [{ document: publicDocument(), routes: [heldRoute(waitRoute(deps, checks)), heldRoute(streamInboxEventsRoute(deps))] }];
}
