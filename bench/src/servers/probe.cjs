// Loaded into the mailstop process with --require (never by mailstop itself): reports the
// process's memory and event-loop delay on a loopback port for the benchmark to read.
const { monitorEventLoopDelay } = require("node:perf_hooks");
const { createServer } = require("node:http");
const { isMainThread } = require("node:worker_threads");

// --require also runs in the module loader's thread (tsx registers its hooks there): only the
// main thread is the server.
const port = Number(process.env.BENCH_PROBE_PORT);
if (port && isMainThread) {
  let histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const server = createServer((request, response) => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const body = {
      rss: process.memoryUsage().rss,
      heap_used: process.memoryUsage().heapUsed,
      event_loop_delay_ms: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), mean: ms(histogram.mean) },
    };
    if (request.url === "/reset") histogram.reset();
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(body));
  });
  server.listen(port, "127.0.0.1");
  server.unref();
}
