/// <reference path="./parse-prometheus-text-format.d.ts" />
import parsePrometheusTextFormat from "parse-prometheus-text-format";

/** One metric family of a Prometheus text exposition, as parse-prometheus-text-format reads it. */
export interface MetricFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: { value?: string; count?: string; sum?: string; buckets?: Record<string, string>; labels?: Record<string, string> }[];
}

/** Parses a /metrics answer with a Prometheus text parser (throws on text a scraper would refuse). */
export function parseMetrics(text: string): MetricFamily[] {
  return parsePrometheusTextFormat(text) as MetricFamily[];
}

/** GET `url` (a /metrics route), checked to be the Prometheus text format, parsed. */
export async function scrapeMetrics(url: string): Promise<MetricFamily[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/plain; version=0.0.4")) throw new Error(`GET ${url} is not the Prometheus text format: ${type}`);
  return parseMetrics(await response.text());
}

/**
 * The value of the series of `name` whose labels include `labels`: a counter's or gauge's
 * value, a histogram's count; 0 when there is no such series (a counter not yet moved).
 */
export function metricValue(families: readonly MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (family === undefined) return 0;
  const series = family.metrics.find((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value));
  if (series === undefined) return 0;
  return Number(series.value ?? series.count ?? 0);
}
