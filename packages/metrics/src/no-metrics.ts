import { type Metrics, PrometheusMetrics } from "./metrics";

/**
 * The recorder of `MAILSTOP_METRICS=off`: every method returns at once, nothing is kept, and no
 * registry exists (so neither do prom-client's default collectors: the event-loop delay monitor
 * and the GC observer). The hot paths call it exactly as they call the Prometheus one.
 */
export class NoMetrics implements Metrics {
  observeRequest(): void {}
  smtpSession(): void {}
  smtpRecipient(): void {}
  smtpTransaction(): void {}
  messageVisible(): void {}
  job(): void {}
  webhookDelivery(): void {}
  countWaitsWith(): void {}
  countStreamsWith(): void {}
  readQueueDepthFrom(): void {}
  async expose(): Promise<null> {
    return null;
  }
}

/** The recorder of one started target: Prometheus's, or, when metrics are off, {@link NoMetrics}. */
export function createMetrics(options: { enabled: boolean; queues?: readonly string[] }): Metrics {
  return options.enabled ? new PrometheusMetrics({ queues: options.queues }) : new NoMetrics();
}
