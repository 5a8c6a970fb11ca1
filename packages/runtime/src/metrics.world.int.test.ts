import { PrometheusMetrics } from "@mailstop/metrics";
import {
  SmtpDialogue,
  type MetricFamily,
  eventually,
  metricValue,
  scrapeMetrics,
  startTestReceiver,
  uniqueTag,
  useOwnDatabase,
  useTestServer,
} from "@mailstop/testkit";

// GET /metrics of the monolith, in either world: the Prometheus text format (read by a
// Prometheus text parser), whose counters move with real SMTP sends, waits and reads. A
// database of its own (useOwnDatabase): it waits for a webhook at its own receiver.

const server = useTestServer(async () => ({ mail: true, env: await ownDatabase.env() }));
const ownDatabase = useOwnDatabase("mailstop_metrics_world");
const scrape = () => scrapeMetrics(`${server.url}/metrics`);

/** Scrapes until `holds` is true of the answer (counters move when the work behind them ends). */
function scrapeUntil(what: string, holds: (families: MetricFamily[]) => boolean): Promise<MetricFamily[]> {
  return eventually(
    async () => {
      const families = await scrape();
      return holds(families) ? families : null;
    },
    { what },
  );
}

/**
 * A histogram's count, read from the process's registry: the text parser keeps the buckets of
 * a labelled histogram but drops its `_count` and `_sum` lines (it flattens histograms the way
 * prom2json does unlabelled ones).
 */
async function histogramCount(name: string, labels: Record<string, string> = {}): Promise<number> {
  const { metrics } = server.running.context;
  if (!(metrics instanceof PrometheusMetrics)) throw new Error("the test server records no metrics");
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const series = (values as { metricName?: string; labels: Record<string, string | number>; value: number }[]).find((v) => v.metricName === `${name}_count` && Object.entries(labels).every(([key, value]) => v.labels[key] === value));
  return series?.value ?? 0;
}

describe("GET /metrics", () => {
  it("parses as Prometheus text, with the process's default metrics and every mailstop family", async () => {
    const families = await scrape();
    const names = families.map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["process_cpu_user_seconds_total", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]));
    expect(names).toEqual(
      expect.arrayContaining([
        "mailstop_http_requests_total",
        "mailstop_http_request_duration_seconds",
        "mailstop_smtp_sessions_total",
        "mailstop_smtp_recipients_total",
        "mailstop_smtp_transactions_total",
        "mailstop_accept_to_visible_seconds",
        "mailstop_jobs_total",
        "mailstop_job_queue_depth",
        "mailstop_waits_held",
        "mailstop_streams_open",
        "mailstop_webhook_deliveries_total",
      ]),
    );
    expect(families.find((f) => f.name === "mailstop_job_queue_depth")!.metrics.map((m) => m.labels?.queue)).toEqual(["ingest", "maintenance", "webhooks"]);
  });

  it("counts a wait held, the SMTP session and transaction that end it, its parse, the read after it and the webhook it raises", async () => {
    const hook = await startTestReceiver("127.0.0.1", 0);
    try {
      const created = await server.request("POST", "/v1/webhooks", { body: { url: `${hook.origin}/hook`, events: ["message.received"] } });
      expect(created.status).toBe(201);
      const inbox = await server.createInbox();
      const before = await scrape();
      const histogramsBefore = {
        visible: await histogramCount("mailstop_accept_to_visible_seconds"),
        wait: await histogramCount("mailstop_http_request_duration_seconds", { route: "waitForMessage", method: "POST" }),
      };
      const count = (families: MetricFamily[], name: string, labels: Record<string, string> = {}) => metricValue(families, name, labels) - metricValue(before, name, labels);

      const waiting = server.request("POST", "/v1/messages/wait", { body: { inbox: inbox.address, timeout_ms: 30_000 } });
      await scrapeUntil("the wait to be held", (families) => metricValue(families, "mailstop_waits_held") === 1);
      const subject = `Metrics ${uniqueTag("m")}`;
      await server.send({ to: inbox.address, subject, text: "Your code is 271828" });
      const waited = await waiting;
      expect(waited.status).toBe(200);
      const messageId = (waited.json as { message: { id: string } }).message.id;
      expect((await server.request("GET", `/v1/messages/${messageId}`)).status).toBe(200);
      expect((await server.request("GET", `/v1/messages/${messageId}x`)).status).toBe(404);
      expect((await server.request("GET", `/v1/no-such-route/${messageId}`)).status).toBe(404);
      await hook.waitFor(1);

      const after = await scrapeUntil("the wait, the parse and the webhook to be counted", (families) => count(families, "mailstop_webhook_deliveries_total", { outcome: "delivered" }) === 1 && metricValue(families, "mailstop_waits_held") === 0);
      expect(count(after, "mailstop_smtp_sessions_total", { listener: "receiving", reply_class: "2xx" })).toBe(1);
      expect(count(after, "mailstop_smtp_recipients_total", { listener: "receiving", reply_class: "2xx" })).toBe(1);
      expect(count(after, "mailstop_smtp_transactions_total", { listener: "receiving", reply_class: "2xx" })).toBe(1);
      expect((await histogramCount("mailstop_accept_to_visible_seconds")) - histogramsBefore.visible).toBe(1);
      expect(count(after, "mailstop_jobs_total", { job: "parse-message", outcome: "completed" })).toBe(1);
      expect(count(after, "mailstop_http_requests_total", { route: "waitForMessage", method: "POST", status: "200" })).toBe(1);
      expect((await histogramCount("mailstop_http_request_duration_seconds", { route: "waitForMessage", method: "POST" })) - histogramsBefore.wait).toBe(1);
      // Ids never become labels: the route is the operation, whatever the path held.
      expect(count(after, "mailstop_http_requests_total", { route: "getMessage", method: "GET", status: "200" })).toBe(1);
      expect(count(after, "mailstop_http_requests_total", { route: "getMessage", method: "GET", status: "404" })).toBe(1);
      expect(count(after, "mailstop_http_requests_total", { route: "unmatched", method: "GET", status: "404" })).toBe(1);
      const routes = after.find((f) => f.name === "mailstop_http_requests_total")!.metrics.map((m) => m.labels!.route!);
      expect(routes.filter((route) => route.includes(messageId))).toEqual([]);
      expect(routes).toContain("/metrics");
    } finally {
      await hook.stop();
    }
  });

  it("counts the event streams open while they are", async () => {
    const inbox = await server.createInbox();
    const opened = new AbortController();
    const stream = await fetch(`${server.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${server.apiKey}` }, signal: opened.signal });
    expect(stream.status).toBe(200);
    await scrapeUntil("the stream to be counted", (families) => metricValue(families, "mailstop_streams_open") === 1);
    opened.abort();
    await stream.body?.cancel().catch(() => undefined);
    await scrapeUntil("the closed stream to be counted out", (families) => metricValue(families, "mailstop_streams_open") === 0);
  });

  it("counts refused recipients by their reply class", async () => {
    const before = await scrape();
    const { dialogue } = await SmtpDialogue.open(server.smtpPort);
    try {
      expect((await dialogue.command("EHLO client.example")).code).toBe(250);
      expect((await dialogue.command("MAIL FROM:<app@example.com>")).code).toBe(250);
      expect((await dialogue.command(`RCPT TO:<${server.project.projectKey}.${uniqueTag("none")}@nowhere.example>`)).code).toBe(550);
    } finally {
      dialogue.close();
    }
    const after = await scrapeUntil("the refused recipient to be counted", (families) => metricValue(families, "mailstop_smtp_recipients_total", { listener: "receiving", reply_class: "5xx" }) > metricValue(before, "mailstop_smtp_recipients_total", { listener: "receiving", reply_class: "5xx" }));
    expect(metricValue(after, "mailstop_smtp_recipients_total", { listener: "receiving", reply_class: "5xx" }) - metricValue(before, "mailstop_smtp_recipients_total", { listener: "receiving", reply_class: "5xx" })).toBe(1);
  });
});
