export { startTarget, type RunningTarget, type StartOptions } from "./runner";
export { runProcess } from "./run-process";
export { TARGETS, TARGET_NAMES, isTarget, startOrder, type Target, type ModuleName } from "./targets";
export type { ServiceModule, RuntimeContext } from "./module";
