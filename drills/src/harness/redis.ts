import { join } from "node:path";
import { freePort, tcpAnswers } from "@mailstop/deploy";
import { Redis } from "ioredis";
import { Child } from "./child";
import { until } from "./time";

/**
 * A redis-server of the drills' own on a free port, without persistence (`--save ""`,
 * no AOF): a kill -9 and restart comes back empty, as a cache-only Redis does.
 */
export class RedisServer {
  private child: Child | null = null;

  private constructor(
    readonly port: number,
    private readonly logDir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(logDir: string): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), logDir);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", this.logDir];
    const child = new Child("redis", "redis-server", args, { env: { PATH: process.env.PATH ?? "" }, logFile: join(this.logDir, "redis.log") });
    this.child = child;
    await until("redis-server to listen", async () => {
      if (!child.running) throw new Error(`redis-server exited: ${child.log().slice(-400)}`);
      return tcpAnswers("127.0.0.1", this.port);
    }, 10_000, 50);
  }

  async kill(): Promise<void> {
    await this.child?.kill();
  }

  async stop(): Promise<void> {
    await this.child?.stop(5_000);
  }

  /** Runs one command on a connection of its own (FLUSHALL, CLIENT KILL, INFO). */
  async command(...args: string[]): Promise<unknown> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    try {
      await client.connect();
      return await client.call(args[0]!, ...args.slice(1));
    } finally {
      client.disconnect();
    }
  }
}
