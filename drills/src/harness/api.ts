/** A JSON answer of the HTTP API. */
export interface Answer<T = any> {
  status: number;
  body: T;
}

/** A JSON call; never throws on a status (drills look at 4xx and 5xx), only on no answer within `timeoutMs`. */
export async function request<T = any>(base: string, token: string, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<Answer<T>> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's page): kept as text for the message.
  }
  return { status: response.status, body: parsed as T };
}

/**
 * A read retried on a network failure: a keep-alive connection the server closed just as it
 * was reused fails the request ("fetch failed") with nothing wrong on either side.
 */
export async function read<T = any>(base: string, token: string, path: string, attempts = 3): Promise<Answer<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request<T>(base, token, "GET", path);
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** A call that must succeed (set-up: a project, an inbox). */
export async function call<T = any>(base: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await request<T>(base, token, method, path, body);
  if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`);
  return answer.body;
}
