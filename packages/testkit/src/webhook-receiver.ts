import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "./smtp";

/** One request a receiver took. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: Date;
}

/** What a receiver answers; `hang` never answers (the sender's timeout ends it). */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface TestReceiver {
  /** `http://<host>:<port>`. */
  origin: string;
  received: ReceivedRequest[];
  /** How the next requests are answered: the n-th (0-based) request's answer. Default 200. */
  answer(decide: (request: ReceivedRequest, n: number) => ReceiverAnswer): void;
  /** Resolves once `count` requests (in all) have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

/**
 * A real HTTP server a webhook test points an endpoint at, on a loopback address of its choice
 * (127.0.0.2 sits outside 127.0.0.1, so an allow list can admit one and refuse the other).
 */
export async function startTestReceiver(host = "127.0.0.2", port = 0): Promise<TestReceiver> {
  const received: ReceivedRequest[] = [];
  let decide: (request: ReceivedRequest, n: number) => ReceiverAnswer = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: new Date() };
      const answer = decide(request, received.length);
      received.push(request);
      if (answer === "hang") return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${bound}`,
    received,
    answer: (next) => void (decide = next),
    waitFor: (count, timeoutMs = 30_000) => eventually(async () => (received.length >= count ? received.slice() : null), { timeoutMs, what: `${count} webhook request(s) at ${host}:${bound}` }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
