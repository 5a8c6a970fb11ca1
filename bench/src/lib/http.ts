import { Agent, request } from "node:http";

/** A JSON POST on `agent`, resolving when the whole response has arrived, with that moment. */
export function postJson<T>(agent: Agent, url: string, token: string, body: unknown): Promise<{ status: number; body: T; at: number }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": payload.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const at = performance.now();
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as T, at });
        } catch (error) {
          reject(error);
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A connection per request, as many as asked for (10,000 held waits need 10,000 sockets). */
export const unpooledAgent = () => new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
