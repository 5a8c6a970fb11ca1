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
  // /profile/start and /profile/stop?file=… take a V8 CPU profile of one phase of a scenario.
  const { Session } = require("node:inspector");
  const { writeFileSync } = require("node:fs");
  let session = null;
  const profiler = (request, response) => {
    const url = new URL(request.url, "http://probe");
    if (url.pathname === "/profile/start") {
      session = new Session();
      session.connect();
      session.post("Profiler.enable", () => session.post("Profiler.start", () => response.end("{}")));
      return true;
    }
    if (url.pathname === "/profile/stop" && session) {
      session.post("Profiler.stop", (error, result) => {
        if (!error) writeFileSync(url.searchParams.get("file"), JSON.stringify(result.profile));
        session.disconnect();
        session = null;
        response.end(JSON.stringify({ error: error ? String(error) : null }));
      });
      return true;
    }
    // /heap-snapshot?file=…: what the process holds, object by object (the held-waits and
    // held-streams scenarios take one idle and one while held; bench/src/tools/heap-diff.ts).
    if (url.pathname === "/heap-snapshot") {
      require("node:v8").writeHeapSnapshot(url.searchParams.get("file"));
      response.end("{}");
      return true;
    }
    return false;
  };
  // /gc: a full collection before a memory reading, so RSS shows what is held, not garbage
  // that V8 has not collected yet (a scenario before may have left plenty).
  require("node:v8").setFlagsFromString("--expose-gc");
  const gc = require("node:vm").runInNewContext("gc");
  const server = createServer((request, response) => {
    if (profiler(request, response)) return;
    if (request.url === "/gc") {
      gc();
      gc();
    }
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
