import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PrometheusMetrics } from "@mailstop/metrics";
import { listOperations, publicDocument } from "@mailstop/openapi";
import { REPO_ROOT } from "./generated-files";

// infra/grafana/mailstop.json draws the series of GET /metrics: every metric a query names must
// be one a mailstop process exposes, and every route it names an operation of the API, so a
// renamed metric or operation fails here rather than leaving an empty panel.

interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource: { uid: string } }[];
}

const dashboard = JSON.parse(readFileSync(resolve(REPO_ROOT, "infra/grafana/mailstop.json"), "utf8")) as { uid: string; panels: Panel[]; templating: { list: { name: string; type: string }[] } };
const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, ...target })));

describe("the Grafana dashboard", () => {
  it("queries only metrics that a mailstop process exposes", async () => {
    const exposed = new Set((await new PrometheusMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name));
    expect(queries.length).toBeGreaterThan(10);
    for (const { panel, expr } of queries) {
      const named = [...expr.matchAll(/\b((?:mailstop|process|nodejs)_[a-z0-9_]+)\b/g)].map(([name]) => name!.replace(/_(bucket|count|sum)$/, ""));
      expect(named.length).toBeGreaterThan(0);
      for (const name of named) expect(`${panel}: ${name} ${exposed.has(name) ? "exposed" : "missing"}`).toBe(`${panel}: ${name} exposed`);
    }
  });

  it("names routes by operations of the API", () => {
    const operations = new Set(listOperations(publicDocument()).keys());
    const routes = queries.flatMap(({ expr }) => [...expr.matchAll(/route(?:=|!=|=~|!~)"([^"]+)"/g)].flatMap(([, value]) => value!.split("|")));
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) expect(operations.has(route)).toBe(true);
  });

  it("covers every mailstop metric, each query reading the data source the importer picks", async () => {
    const mailstop = (await new PrometheusMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name).filter((name) => name.startsWith("mailstop_"));
    const drawn = queries.map(({ expr }) => expr).join("\n");
    for (const name of mailstop) expect(`${name} ${drawn.includes(name) ? "drawn" : "not drawn"}`).toBe(`${name} drawn`);
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: "datasource", type: "datasource" }));
    for (const query of queries) expect(query.datasource.uid).toBe("${datasource}");
  });
});
