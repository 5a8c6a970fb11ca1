import { NoMetrics, createMetrics } from "./no-metrics";
import { PrometheusMetrics } from "./metrics";

describe("createMetrics", () => {
  it("gives the Prometheus recorder when metrics are on, with the queues it reads when scraped", async () => {
    const metrics = createMetrics({ enabled: true, queues: ["ingest"] });
    expect(metrics).toBeInstanceOf(PrometheusMetrics);
    metrics.readQueueDepthFrom(async () => 3);
    expect((await metrics.expose())!.body).toContain('mailstop_job_queue_depth{queue="ingest"} 3');
  });

  it("gives a recorder that takes every call, keeps nothing and has no exposition when metrics are off", async () => {
    const metrics = createMetrics({ enabled: false, queues: ["ingest"] });
    expect(metrics).toBeInstanceOf(NoMetrics);
    let read = 0;
    metrics.observeRequest("getMessage", "GET", 200, 0.004);
    metrics.smtpSession("capture", 220);
    metrics.smtpRecipient("receiving", 550);
    metrics.smtpTransaction("receiving", 250);
    metrics.messageVisible(0.2);
    metrics.job("parse-message", "completed");
    metrics.webhookDelivery("delivered");
    metrics.countWaitsWith(() => ++read);
    metrics.countStreamsWith(() => ++read);
    metrics.readQueueDepthFrom(async () => ++read);
    expect(await metrics.expose()).toBeNull();
    // The gauges' sources are never read: nothing is scraped.
    expect(read).toBe(0);
  });
});
