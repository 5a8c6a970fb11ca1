export * from "./catalog";
export { type JobQueue, type JobHandlers, type JobWorker, PermanentJobError } from "./job-queue";
export type { Bus } from "./bus";
export { BullJobQueue, startBullWorker } from "./bull-job-queue";
export { DatabaseJobQueue, startDatabaseWorker, WORKER_CLOSE_GRACE_MS } from "./database-job-queue";
export { InProcessBus, InProcessWaitSlots } from "./in-process";
export { RedisBus } from "./redis-bus";
export { createRedis } from "./redis-connection";
export { RedisWaitSlots, SLOT_LEASE, type WaitSlots, type WaitSlot } from "./wait-slots";
