#!/usr/bin/env node
// The image's health check: node, because the slim image has neither curl nor wget.
//   healthcheck.cjs http <port> <path>   GET http://127.0.0.1:<port><path> answers 2xx
//   healthcheck.cjs                      the check of $TARGET (the Dockerfile's HEALTHCHECK)
// compose and Kubernetes pass each service's check from packages/deploy/src/fleet-services.ts.
"use strict";
const http = require("node:http");

const TIMEOUT_MS = 4000;

function checkHttp(port, path) {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path, timeout: TIMEOUT_MS }, (response) => {
      response.resume();
      resolve(response.statusCode >= 200 && response.statusCode < 300);
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(false));
  });
}

/** The check of a target on the ports of its environment (the image's defaults otherwise). */
function byTarget(target) {
  const env = process.env;
  switch (target) {
    case "all":
    case "api":
    case "waiter":
      return checkHttp(Number(env.MAILSTOP_HTTP_PORT || 8025), "/ready");
    case "smtp-edge":
    case "parser":
      // Their operations listener (/health, /ready, /metrics).
      return checkHttp(Number(env.MAILSTOP_OPS_PORT || 8026), "/ready");
    default:
      return Promise.resolve(false);
  }
}

const [kind, port, path] = process.argv.slice(2);
const check = kind === "http" ? checkHttp(Number(port), path || "/health") : byTarget(process.env.TARGET || "all");
check.then((ok) => process.exit(ok ? 0 : 1));
