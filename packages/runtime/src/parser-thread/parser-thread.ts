import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { Config } from "@mailstop/config";
import { type Logger, writeLogLine } from "@mailstop/logging";
import type { Metrics } from "@mailstop/metrics";
import { BUNDLE_DIR } from "../bundle";
import type { FromParserThread, ParserThreadData, ToParserThread } from "./protocol";

const BOOT = join(__dirname, "thread-boot.cjs");
/** What the thread runs: its compiled bundle beside the main thread's, or (null) thread-main.ts through tsx. */
const COMPILED_THREAD = BUNDLE_DIR === null ? null : join(BUNDLE_DIR, "parser-thread.cjs");
/** After an unexpected exit, the first restart waits this long, doubling up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/**
 * The thread's young generation, capped: V8 grows it to tens of MB while the modules load and
 * keeps it, which measured 40 MB of the process's RSS with no cap (288 → 248 MB at 4 MB, idle,
 * on PostgreSQL and Redis). A parse's garbage is short-lived and small; scavenges stay cheap.
 */
const YOUNG_GENERATION_MB = 8;
/** How long a stop waits for jobs in hand to finish before the thread is terminated (they are retried). */
const STOP_DEADLINE_MS = 30_000;

/**
 * The monolith's parser on a worker thread: starts it, restarts it when it dies (its jobs are
 * in Redis, claimed by leases, so a dead thread's jobs run again), asks it whether it is ready,
 * and stops it. Its log lines and metric events come back over the thread's port.
 */
export class ParserThread {
  #worker: Worker | null = null;
  #started = false;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #restartDelayMs = RESTART_FIRST_MS;
  #nextQuery = 0;
  readonly #answers = new Map<number, (ready: boolean) => void>();

  constructor(private readonly deps: { config: Config; logger: Logger; metrics: Metrics }) {}

  /** Resolves once the thread's modules have started; rejects with its start failure. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const data: ParserThreadData = { config: this.deps.config };
      const worker = new Worker(BOOT, { workerData: data, argv: COMPILED_THREAD === null ? [] : [COMPILED_THREAD], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
      this.#worker = worker;
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        if (error === undefined) resolve();
        else reject(error);
      };
      worker.on("message", (message: FromParserThread) => {
        if (message.type === "started") {
          this.#started = true;
          this.#restartDelayMs = RESTART_FIRST_MS;
          settle();
        } else if (message.type === "start-failed") settle(new Error(`the parser thread could not start: ${message.message}`));
        else this.#handle(message);
      });
      worker.on("error", (error) => {
        this.deps.logger.error({ err: error }, "the parser thread failed");
        settle(error);
      });
      worker.on("exit", (code) => {
        this.#started = false;
        if (this.#worker === worker) this.#worker = null;
        for (const answer of this.#answers.values()) answer(false);
        this.#answers.clear();
        settle(new Error(`the parser thread exited (code ${code}) before it started`));
        if (!this.#stopping) this.#restartLater(code);
      });
    });
  }

  /** The thread's modules' readiness; false while it is down or restarting. */
  ready(): Promise<boolean> {
    const worker = this.#worker;
    if (worker === null || !this.#started) return Promise.resolve(false);
    const id = this.#nextQuery++;
    return new Promise((resolve) => {
      this.#answers.set(id, resolve);
      this.#post(worker, { type: "ready?", id });
    });
  }

  /** The running thread's id, or null while it is down. */
  get threadId(): number | null {
    return this.#worker?.threadId ?? null;
  }

  /** Ends the thread at once, as a crash would: it is restarted and its jobs run again (for the tests of exactly that). */
  async kill(): Promise<void> {
    await this.#worker?.terminate();
  }

  /** Asks the thread to finish its jobs in hand and end; terminates it past STOP_DEADLINE_MS. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    this.#post(worker, { type: "stop" });
    const deadline = setTimeout(() => {
      this.deps.logger.warn({ deadline_ms: STOP_DEADLINE_MS }, "the parser thread did not stop in time; terminating it (its jobs run again)");
      void worker.terminate();
    }, STOP_DEADLINE_MS);
    await exited;
    clearTimeout(deadline);
  }

  #handle(message: Exclude<FromParserThread, { type: "started" | "start-failed" }>): void {
    switch (message.type) {
      case "log":
        writeLogLine(this.deps.logger, message.line);
        return;
      case "metric":
        (this.deps.metrics[message.name] as (...args: unknown[]) => void)(...message.args);
        return;
      case "ready":
        this.#answers.get(message.id)?.(message.ready);
        this.#answers.delete(message.id);
        return;
      case "stopped":
        return;
    }
  }

  #post(worker: Worker, message: ToParserThread): void {
    worker.postMessage(message);
  }

  #restartLater(code: number): void {
    const delayMs = this.#restartDelayMs;
    this.#restartDelayMs = Math.min(delayMs * 2, RESTART_MAX_MS);
    this.deps.logger.error({ exit_code: code, restart_in_ms: delayMs }, "the parser thread exited; restarting it");
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.start().catch((error: unknown) => this.deps.logger.error({ err: error }, "the parser thread could not restart"));
    }, delayMs);
  }
}
