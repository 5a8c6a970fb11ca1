import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { onCleanup } from "./cleanup";

/** What the proxy did to one request. */
export type Fault =
  | "none"
  /** Answered 500 or 503 without forwarding: the store never saw it. */
  | "error-before"
  /** Forwarded (a put landed, a delete happened), then answered 500 or 503 all the same. */
  | "error-after"
  /** Held past the edge's write deadline, then forwarded and answered. */
  | "stall-answer"
  /** Held past the edge's write deadline, then the connection cut without forwarding. */
  | "stall-drop";

export interface ProxiedRequest {
  method: string;
  /** The path without the query (`/<bucket>/<key>`), the query apart. */
  path: string;
  query: string;
  fault: Fault;
  /** The status the client got (0: cut). */
  status: number;
  at: number;
}

export interface FaultPlan {
  /** Share of requests answered 500 or 503 (half each), half of them after forwarding. */
  errorShare: number;
  /** Share of requests held `stallMs`, half of them then cut. */
  stallShare: number;
  stallMs: number;
  seed: number;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence of choices. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An S3 error document as S3 writes it, so the client reads a code, not a parse failure. */
function s3Error(status: 500 | 503, resource: string): string {
  const [code, message] = status === 500 ? ["InternalError", "We encountered an internal error. Please try again."] : ["SlowDown", "Please reduce your request rate."];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>drills-fault</RequestId></Error>`;
}

/**
 * A flaky object store: an HTTP proxy on loopback in front of the drills' s3rver that, while
 * a fault plan is set, answers a seeded random share of requests with S3's 500 or 503 errors
 * and holds another share past the edge's 10 s write deadline before answering or cutting.
 * Without a plan it only forwards. Every request is recorded with what was done to it, so a
 * drill can tell which puts failed as the client saw them.
 */
export class S3FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private plan: FaultPlan | null = null;
  private random: () => number = Math.random;
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    private readonly upstreamPort: number,
  ) {}

  static async create(upstreamPort: number): Promise<S3FaultProxy> {
    let proxy: S3FaultProxy | undefined;
    const server = createServer((req, res) => proxy!.handle(req, res));
    proxy = new S3FaultProxy(server, upstreamPort);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onCleanup("s3 fault proxy", () => proxy.close());
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Starts injecting faults by `plan` (and forgets the requests recorded so far). */
  faults(plan: FaultPlan): void {
    this.plan = plan;
    this.random = seeded(plan.seed);
    this.requests.length = 0;
  }

  /** Forwards everything again; requests already held finish as planned. */
  calm(): void {
    this.plan = null;
  }

  get faulty(): boolean {
    return this.plan !== null;
  }

  private choose(): Fault {
    const plan = this.plan;
    if (plan === null) return "none";
    const roll = this.random();
    const half = this.random() < 0.5;
    if (roll < plan.errorShare) return half ? "error-before" : "error-after";
    if (roll < plan.errorShare + plan.stallShare) return half ? "stall-answer" : "stall-drop";
    return "none";
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const [path = "/", query = ""] = (req.url ?? "/").split("?", 2);
    const fault = this.choose();
    const record: ProxiedRequest = { method: req.method ?? "GET", path, query, fault, status: 0, at: Date.now() };
    this.requests.push(record);
    const status: 500 | 503 = this.random() < 0.5 ? 500 : 503;
    const answerError = () => {
      record.status = status;
      const body = req.method === "HEAD" ? "" : s3Error(status, path);
      res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body), "x-amz-request-id": "drills-fault" });
      res.end(body);
    };
    switch (fault) {
      case "error-before":
        req.resume();
        req.once("end", answerError);
        return;
      case "error-after":
        this.forward(req, res, record, answerError);
        return;
      case "stall-answer":
      case "stall-drop": {
        // The body stays unread meanwhile: the client's write waits, as on a stuck server.
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (fault === "stall-answer") this.forward(req, res, record);
          else req.socket.destroy();
        }, this.plan?.stallMs ?? 12_000);
        this.timers.add(timer);
        return;
      }
      default:
        this.forward(req, res, record);
    }
  }

  /** Passes the request to s3rver; `instead` replaces its answer (after the store acted on it). */
  private forward(req: IncomingMessage, res: ServerResponse, record: ProxiedRequest, instead?: () => void): void {
    const upstream = httpRequest({ host: "127.0.0.1", port: this.upstreamPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (instead) {
        answer.resume();
        answer.once("end", instead);
        return;
      }
      record.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.once("error", () => req.socket.destroy());
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
