import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The class of an SMTP reply code: what a dashboard groups by (a 4xx is retried, a 5xx bounces). */
export type ReplyClass = "2xx" | "4xx" | "5xx";
/** The two SMTP listeners of the edge. */
export type SmtpListener = "receiving" | "capture";
/** How a job run ended: `completed`; `retried` (it failed and will run again); `failed` (for good). */
export type JobOutcome = "completed" | "retried" | "failed";
/** How one webhook delivery attempt ended: delivered; failed, to be retried; failed with no attempt left; dropped unsent (endpoint disabled, message gone). */
export type WebhookOutcome = "delivered" | "retried" | "failed" | "dropped";

const REPLY_CLASSES: readonly ReplyClass[] = ["2xx", "4xx", "5xx"];
const LISTENERS: readonly SmtpListener[] = ["receiving", "capture"];
const WEBHOOK_OUTCOMES: readonly WebhookOutcome[] = ["delivered", "retried", "failed", "dropped"];

/** The class of an SMTP reply code (a 3xx, the intermediate 354, is never a final reply here). */
export function replyClassOf(code: number): ReplyClass {
  return code < 400 ? "2xx" : code < 500 ? "4xx" : "5xx";
}

/** A counter child per (first, second) label, created once: the hot path does two property reads and an inc. */
function childTable<A extends string, B extends string>(counter: Counter<string>, first: readonly A[], second: readonly B[]): Record<A, Record<B, Counter.Internal>> {
  const table = {} as Record<A, Record<B, Counter.Internal>>;
  for (const a of first) {
    table[a] = {} as Record<B, Counter.Internal>;
    for (const b of second) {
      table[a][b] = counter.labels(a, b);
      // A series at 0 from the start: rate() over a counter that appears at its first event misses that event.
      table[a][b].inc(0);
    }
  }
  return table;
}

/** The Prometheus text exposition of a process's metrics, as GET /metrics answers it. */
export interface Exposition {
  contentType: string;
  body: string;
}

/**
 * What packages record through: the Prometheus registry of {@link PrometheusMetrics}, or, with
 * `MAILSTOP_METRICS=off`, the recorder that does nothing (`NoMetrics`). The hot paths call these
 * methods alike either way; the choice is made once, where the runtime creates the recorder.
 */
export interface Metrics {
  /** One HTTP response ended. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  smtpSession(listener: SmtpListener, code: number): void;
  smtpRecipient(listener: SmtpListener, code: number): void;
  smtpTransaction(listener: SmtpListener, code: number): void;
  /** A message became visible `seconds` after its transaction's 250. */
  messageVisible(seconds: number): void;
  job(name: string, outcome: JobOutcome): void;
  webhookDelivery(outcome: WebhookOutcome): void;
  /** `count` tells how many waits are held now; read when scraped. */
  countWaitsWith(count: () => number): void;
  /** `count` tells how many event streams are open now; read when scraped. */
  countStreamsWith(count: () => number): void;
  /** Reads the queue depth gauge from `source` when scraped (the process that consumes the queues). */
  readQueueDepthFrom(source: (queue: string) => Promise<number>): void;
  /** The exposition; null when metrics are off, and the listener answers /metrics as an unknown route (404). */
  expose(): Promise<Exposition | null>;
}

/**
 * How often prom-client's event-loop delay monitor (`nodejs_eventloop_lag_*`) samples the loop:
 * every 100 ms, not its default 10 ms. Each sample wakes the loop, and 100 wakes a second were
 * ~0.6 % of a core in an otherwise idle `pnpm start` (docs/performance.md "What wakes up while
 * idle"); 10 a second cost a tenth of that and still give a scrape's window hundreds of samples.
 * A stall shorter than 100 ms can fall between two samples; one longer is always seen.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** Seconds buckets from 5 ms to 60 s: an API call, a held wait (≤ 285 s lands in +Inf), a parse. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The metrics of one mailstop process, in a registry of its own (a test process runs several
 * targets; prom-client's global registry would refuse the second). Every name starts with
 * `mailstop_`; docs/operator.md "Metrics" lists them and infra/grafana/mailstop.json draws them.
 * Label values are closed sets (route templates and operationIds, never raw paths), so the
 * series stay few; the label children of the hot paths are created here once.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: "mailstop_http_requests_total",
    help: "HTTP requests answered, by route (OpenAPI operationId or route template), method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: "mailstop_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its response, by route and method (a held wait counts the time it was held).",
    labelNames: ["route", "method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  /** route → method → status → counter child, and route → method → histogram child. */
  private readonly httpChildren = new Map<string, Map<string, { duration: Histogram.Internal<string>; byStatus: Map<number, Counter.Internal> }>>();

  private readonly smtpSessions = this.smtpCounter("mailstop_smtp_sessions_total", "SMTP connections, by listener and the class of their greeting (4xx: refused while shutting down).");
  private readonly smtpRecipients = this.smtpCounter("mailstop_smtp_recipients_total", "RCPT TO commands, by listener and reply class.");
  private readonly smtpTransactions = this.smtpCounter("mailstop_smtp_transactions_total", "SMTP transactions (the reply to the end of DATA), by listener and reply class.");

  private readonly acceptToVisibleSeconds = new Histogram({
    name: "mailstop_accept_to_visible_seconds",
    help: "Time from the SMTP edge's 250 to the message being stored, readable and announced (copies delayed by sim.delay are not counted).",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  private readonly jobs = new Counter({
    name: "mailstop_jobs_total",
    help: "Job runs of this process's workers, by job name and outcome (completed, retried, failed for good).",
    labelNames: ["job", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly jobChildren = new Map<string, Record<JobOutcome, Counter.Internal>>();

  private readonly webhookDeliveries = new Counter({
    name: "mailstop_webhook_deliveries_total",
    help: "Webhook delivery attempts, by outcome (delivered; retried later; failed with no attempt left; dropped unsent).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  private readonly webhookChildren = Object.fromEntries(WEBHOOK_OUTCOMES.map((outcome) => [outcome, this.webhookDeliveries.labels(outcome)])) as Record<
    WebhookOutcome,
    Counter.Internal
  >;

  /** What the two gauges below add up when scraped: nothing is counted on the wait and stream paths themselves. */
  private readonly waitCounts: (() => number)[] = [];
  private readonly streamCounts: (() => number)[] = [];

  /** Where the queue depth gauge reads from (the parser's job queue); none: the gauge is absent. */
  private queueDepthSource: ((queue: string) => Promise<number>) | null = null;

  constructor(options: { queues?: readonly string[] } = {}) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    const queues = options.queues ?? [];
    const metrics = this;
    // Read when scraped: the sum of what each source counts now.
    for (const [name, help, counts] of [
      ["mailstop_waits_held", "Blocking waits held open by this process now.", this.waitCounts],
      ["mailstop_streams_open", "Event streams open on this process now.", this.streamCounts],
    ] as const) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(counts.reduce((total, count) => total + count(), 0));
        },
      });
    }
    new Gauge({
      name: "mailstop_job_queue_depth",
      help: "Jobs waiting to run (due or delayed) in each queue (`ingest` is the parse queue), read when scraped by a process that consumes them.",
      labelNames: ["queue"] as const,
      registers: [this.registry],
      async collect() {
        const source = metrics.queueDepthSource;
        if (source === null) return;
        const depths = await Promise.all(queues.map((queue) => source(queue).catch(() => null)));
        queues.forEach((queue, index) => {
          const depth = depths[index];
          if (depth !== null && depth !== undefined) this.labels(queue).set(depth);
        });
      },
    });
  }

  /** A counter by SMTP listener and reply class, its six series created at 0. */
  private smtpCounter(name: string, help: string): Record<SmtpListener, Record<ReplyClass, Counter.Internal>> {
    return childTable(new Counter({ name, help, labelNames: ["listener", "reply_class"] as const, registers: [this.registry] }), LISTENERS, REPLY_CLASSES);
  }

  /** One HTTP response ended. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.httpChildren.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.httpChildren.set(route, byMethod);
    }
    let entry = byMethod.get(method);
    if (entry === undefined) {
      entry = { duration: this.httpDuration.labels(route, method), byStatus: new Map() };
      byMethod.set(method, entry);
    }
    let counter = entry.byStatus.get(status);
    if (counter === undefined) {
      counter = this.httpRequests.labels(route, method, String(status));
      entry.byStatus.set(status, counter);
    }
    counter.inc();
    entry.duration.observe(seconds);
  }

  smtpSession(listener: SmtpListener, code: number): void {
    this.smtpSessions[listener][replyClassOf(code)].inc();
  }

  smtpRecipient(listener: SmtpListener, code: number): void {
    this.smtpRecipients[listener][replyClassOf(code)].inc();
  }

  smtpTransaction(listener: SmtpListener, code: number): void {
    this.smtpTransactions[listener][replyClassOf(code)].inc();
  }

  /** A message became visible `seconds` after its transaction's 250. */
  messageVisible(seconds: number): void {
    this.acceptToVisibleSeconds.observe(seconds);
  }

  job(name: string, outcome: JobOutcome): void {
    let children = this.jobChildren.get(name);
    if (children === undefined) {
      children = { completed: this.jobs.labels(name, "completed"), retried: this.jobs.labels(name, "retried"), failed: this.jobs.labels(name, "failed") };
      this.jobChildren.set(name, children);
    }
    children[outcome].inc();
  }

  webhookDelivery(outcome: WebhookOutcome): void {
    this.webhookChildren[outcome].inc();
  }

  /** `count` tells how many waits are held now; read when scraped. */
  countWaitsWith(count: () => number): void {
    this.waitCounts.push(count);
  }

  /** `count` tells how many event streams are open now; read when scraped. */
  countStreamsWith(count: () => number): void {
    this.streamCounts.push(count);
  }

  /** Reads the queue depth gauge from `source` when scraped (the process that consumes the queues). */
  readQueueDepthFrom(source: (queue: string) => Promise<number>): void {
    this.queueDepthSource = source;
  }

  /** The exposition: Prometheus text format and its content type. */
  async expose(): Promise<Exposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
