import type { ResolvedTarget } from "./network-guard";
import { pinnedRequest } from "./pinned-request";

/** How long one attempt may take, connection to last byte. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** What the attempt log keeps of a response body. */
export const RESPONSE_BODY_KEPT = 1024;

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  /** The first KiB of the response, as text. */
  body: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * One POST of `body` to a checked target, pinned to the address the guard checked
 * (pinnedRequest). Only a 2xx succeeds; a 3xx is a failure whose Location is never requested.
 */
export function deliver(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<AttemptOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const request = pinnedRequest(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "mailstop-webhooks" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_KEPT) chunks.push(chunk.subarray(0, RESPONSE_BODY_KEPT - kept));
          kept += chunk.length;
        });
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({ ok, status, body: Buffer.concat(chunks).toString("utf8"), error: ok ? null : status >= 300 && status < 400 ? "redirect_not_followed" : `http_${status}` });
        });
        response.on("error", (error) => finish({ ok: false, status: response.statusCode ?? null, body: null, error: `connection: ${error.message}` }));
      },
    );
    const deadline = setTimeout(() => {
      finish({ ok: false, status: null, body: null, error: `timeout after ${timeoutMs / 1000} s` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error) => finish({ ok: false, status: null, body: null, error: `connection: ${error.message}` }));
    request.end(body);
  });
}
