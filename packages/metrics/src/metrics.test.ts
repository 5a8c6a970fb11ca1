import perfHooks from "node:perf_hooks";
import { EVENT_LOOP_SAMPLE_MS, PrometheusMetrics, replyClassOf } from "./metrics";

async function seriesOf(metrics: PrometheusMetrics, name: string): Promise<{ metricName?: string; labels: Record<string, string | number>; value: number }[]> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (await metric.get()).values as never;
}

describe("PrometheusMetrics", () => {
  it(`samples the event loop's delay every ${EVENT_LOOP_SAMPLE_MS} ms (each sample wakes an idle process), not prom-client's 10`, () => {
    const monitor = jest.spyOn(perfHooks, "monitorEventLoopDelay");
    try {
      new PrometheusMetrics();
      expect(monitor).toHaveBeenCalledWith({ resolution: EVENT_LOOP_SAMPLE_MS });
    } finally {
      monitor.mockRestore();
    }
  });

  it("classes SMTP replies as a dashboard groups them", () => {
    expect([220, 250, 354, 421, 451, 452, 550, 554].map(replyClassOf)).toEqual(["2xx", "2xx", "2xx", "4xx", "4xx", "4xx", "5xx", "5xx"]);
  });

  it("counts requests by route, method and status, and observes their duration by route and method", async () => {
    const metrics = new PrometheusMetrics();
    metrics.observeRequest("getMessage", "GET", 200, 0.004);
    metrics.observeRequest("getMessage", "GET", 200, 0.02);
    metrics.observeRequest("getMessage", "GET", 404, 0.001);
    const requests = await seriesOf(metrics, "mailstop_http_requests_total");
    expect(requests.map((s) => [s.labels.status, s.value])).toEqual([
      ["200", 2],
      ["404", 1],
    ]);
    const durations = await seriesOf(metrics, "mailstop_http_request_duration_seconds");
    expect(durations.find((s) => s.metricName === "mailstop_http_request_duration_seconds_count")).toMatchObject({ labels: { route: "getMessage", method: "GET" }, value: 3 });
  });

  it("creates every SMTP series up front, so a dashboard shows zeros rather than gaps", async () => {
    const metrics = new PrometheusMetrics();
    metrics.smtpTransaction("capture", 451);
    const transactions = await seriesOf(metrics, "mailstop_smtp_transactions_total");
    expect(transactions).toHaveLength(6);
    expect(transactions.find((s) => s.labels.listener === "capture" && s.labels.reply_class === "4xx")!.value).toBe(1);
  });

  it("reads held waits, open streams and queue depths when scraped, from every source it was given", async () => {
    const metrics = new PrometheusMetrics({ queues: ["ingest", "webhooks"] });
    let held = 2;
    metrics.countWaitsWith(() => held);
    metrics.countWaitsWith(() => 1);
    metrics.countStreamsWith(() => 5);
    expect((await seriesOf(metrics, "mailstop_job_queue_depth")).length).toBe(0);
    metrics.readQueueDepthFrom(async (queue) => (queue === "ingest" ? 7 : Promise.reject(new Error("Redis away"))));
    expect((await seriesOf(metrics, "mailstop_waits_held"))[0]!.value).toBe(3);
    held = 0;
    expect((await seriesOf(metrics, "mailstop_waits_held"))[0]!.value).toBe(1);
    expect((await seriesOf(metrics, "mailstop_streams_open"))[0]!.value).toBe(5);
    // A queue whose depth cannot be read is left out, not reported as 0.
    expect((await seriesOf(metrics, "mailstop_job_queue_depth")).map((s) => [s.labels.queue, s.value])).toEqual([["ingest", 7]]);
  });

  it("exposes the Prometheus text format, with the process's default metrics, in a registry of its own", async () => {
    const [one, two] = [new PrometheusMetrics(), new PrometheusMetrics()];
    one.job("parse-message", "completed");
    const { contentType, body } = await one.expose();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain("# TYPE mailstop_jobs_total counter");
    expect(body).toContain('mailstop_jobs_total{job="parse-message",outcome="completed"} 1');
    expect(body).toContain("process_cpu_user_seconds_total");
    expect((await two.expose()).body).not.toContain('outcome="completed"} 1');
  });
});
