/** A raw HTTP call, for what a typed client cannot send (bad JSON, odd headers, unknown routes). */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A raw call with an API key, and a JSON body when one is given. */
export function keyRequest(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): ReturnType<typeof rawRequest> {
  return rawRequest(baseUrl, method, path, {
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Asserts the error envelope (docs/api.md "Errors") and returns its `error` object. */
export function expectError(
  outcome: { status: number; json: any },
  expected: { status: number; code: string; retryable: boolean },
): { code: string; reason: string; retryable: boolean; details?: Record<string, any>; retry_after_seconds?: number } {
  const error = outcome.json?.error;
  if (outcome.status !== expected.status || error?.code !== expected.code || error?.retryable !== expected.retryable || typeof error?.reason !== "string") {
    throw new Error(`expected ${expected.status} ${expected.code} (retryable ${expected.retryable}), got ${outcome.status} ${JSON.stringify(outcome.json)}`);
  }
  return error;
}
