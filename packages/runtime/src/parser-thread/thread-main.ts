import { parentPort, workerData } from "node:worker_threads";
import { createLogger } from "@mailstop/logging";
import type { Metrics } from "@mailstop/metrics";
import { type RunningTarget, startModules } from "../runner";
import { PARSER_THREAD_MODULES } from "./modules";
import { FORWARDED_METRICS, type ForwardedMetric, type FromParserThread, type ParserThreadData, type ToParserThread } from "./protocol";

// The parser thread of the monolith (see parser-thread.module.ts): the parser's modules with
// connections of their own, on an event loop of their own. Its log lines and metric events
// go to the main thread, which writes and counts them as its own.

const port = parentPort!;
const { config } = workerData as ParserThreadData;
const send = (message: FromParserThread) => port.postMessage(message);

const logger = createLogger({ level: config.logLevel, name: "mailstop", format: "json", destination: { write: (line: string) => send({ type: "log", line }) } }).child({ thread: "parser" });

/** The metric events the parser records, posted; the rest (gauges read at scrape, exposition) are the main thread's. */
function forwardingMetrics(): Metrics {
  const forwarded = Object.fromEntries(FORWARDED_METRICS.map((name) => [name, (...args: unknown[]) => send({ type: "metric", name, args })])) as Pick<Metrics, ForwardedMetric>;
  return {
    ...forwarded,
    observeRequest: () => undefined,
    smtpSession: () => undefined,
    smtpRecipient: () => undefined,
    smtpTransaction: () => undefined,
    countWaitsWith: () => undefined,
    countStreamsWith: () => undefined,
    readQueueDepthFrom: () => undefined,
    expose: async () => null,
  };
}

let running: RunningTarget | undefined;

port.on("message", (message: ToParserThread) => {
  if (message.type === "ready?") {
    void (running?.ready() ?? Promise.resolve(false)).then(
      (ready) => send({ type: "ready", id: message.id, ready }),
      () => send({ type: "ready", id: message.id, ready: false }),
    );
    return;
  }
  // Stop: jobs in hand finish (the parser module's worker closes gracefully), then the thread ends.
  void (running?.stop() ?? Promise.resolve()).finally(() => {
    send({ type: "stopped" });
    port.close();
  });
});

startModules("parser", PARSER_THREAD_MODULES, { config, logger, metrics: forwardingMetrics(), print: (text) => logger.info(text) }).then(
  (started) => {
    running = started;
    send({ type: "started" });
  },
  (error: unknown) => {
    logger.error({ err: error }, "the parser thread could not start");
    send({ type: "start-failed", message: error instanceof Error ? error.message : String(error) });
    port.close();
  },
);
