export { startTarget, type RunningTarget, type StartOptions } from "./runner";
export { runProcess } from "./run-process";
export { planTarget, startOrder, type ModuleName, type TargetPlan } from "./targets";
export { TARGETS, TARGET_NAMES, isTarget, type Target } from "./target-names";
export type { ServiceModule, RuntimeContext, Provided } from "./module";
