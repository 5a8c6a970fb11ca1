export { startTarget, type RunningTarget, type StartOptions } from "./runner";
export { runProcess } from "./run-process";
export { TARGETS, TARGET_NAMES, isTarget, planTarget, startOrder, type Target, type ModuleName, type TargetPlan } from "./targets";
export type { ServiceModule, RuntimeContext } from "./module";
