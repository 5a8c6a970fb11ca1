import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort, tcpAnswers } from "@mailstop/deploy";
import { Child } from "./child";
import { until } from "./time";

const SERVER = join(__dirname, "..", "..", "..", "packages", "deploy", "src", "s3-server.main.ts");

/** s3rver in a child process: each target uses a bucket of its own (mailstop creates it). */
export class S3Server {
  private child: Child | null = null;

  private constructor(
    readonly port: number,
    /** s3rver's files: `<directory>/<bucket>/<key>._S3rver_object` for each object. */
    readonly directory: string,
    private readonly logDir: string,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async create(directory: string, logDir: string): Promise<S3Server> {
    mkdirSync(directory, { recursive: true });
    const server = new S3Server(await freePort(), directory, logDir);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const child = new Child("s3rver", process.execPath, ["--import", "tsx", SERVER, String(this.port), this.directory], {
      env: { PATH: process.env.PATH ?? "" },
      logFile: join(this.logDir, "s3rver.log"),
    });
    this.child = child;
    await until("s3rver to listen", async () => {
      if (!child.running) throw new Error(`s3rver exited: ${child.log().slice(-400)}`);
      return tcpAnswers("127.0.0.1", this.port);
    }, 30_000, 50);
  }

  /** Stopped hard: connections in flight are cut, new ones refused. */
  async kill(): Promise<void> {
    await this.child?.kill();
  }

  /** Frozen (SIGSTOP): connections hang instead of failing, the worst case for a deadline. */
  freeze(): void {
    this.child?.signal("SIGSTOP");
  }

  thaw(): void {
    this.child?.signal("SIGCONT");
  }

  get running(): boolean {
    return this.child?.running ?? false;
  }
}
