import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { httpOk, mailstopBin, tcpAnswers } from "@mailstop/deploy";
import { Child, type Exit } from "./child";
import { until } from "./time";

/** A `mailstop serve --target` value the drills run. */
export type ServiceName = "all" | "smtp-edge" | "parser" | "api" | "waiter";

const REPO = join(__dirname, "..", "..", "..");
const STARTED = /"msg":"mailstop started"/;

/**
 * One mailstop process, restartable on the same ports and environment: a drill kills it
 * (-9 or SIGTERM) and starts it again as an orchestrator would.
 */
export class Service {
  private child: Child | null = null;

  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    readonly ports: { http?: number; smtp?: number; capture?: number; ops?: number },
    private readonly logFile: string,
  ) {}

  get httpUrl(): string | undefined {
    return this.ports.http === undefined ? undefined : `http://127.0.0.1:${this.ports.http}`;
  }

  get process(): Child {
    if (this.child === null) throw new Error(`${this.name} was never started`);
    return this.child;
  }

  get running(): boolean {
    return this.child?.running ?? false;
  }

  /** Starts the process and resolves once it serves (HTTP /health, the SMTP port, the operations listener's /health, or its start line). */
  async start(timeoutMs = 120_000): Promise<void> {
    const env: Record<string, string> = {
      ...this.env,
      ...(this.ports.http === undefined ? {} : { MAILSTOP_HTTP_PORT: String(this.ports.http) }),
      ...(this.ports.smtp === undefined ? {} : { MAILSTOP_SMTP_PORT: String(this.ports.smtp) }),
      ...(this.ports.capture === undefined ? {} : { MAILSTOP_CAPTURE_PORT: String(this.ports.capture) }),
      ...(this.ports.ops === undefined ? {} : { MAILSTOP_OPS_PORT: String(this.ports.ops) }),
    };
    // The log file is shared by every start of the service: only this start's lines count.
    const from = existsSync(this.logFile) ? readFileSync(this.logFile, "utf8").length : 0;
    const child = new Child(this.name, process.execPath, [mailstopBin(), "serve", "--target", this.name], { env, cwd: REPO, logFile: this.logFile });
    this.child = child;
    await until(
      `${this.name} to serve`,
      async () => {
        if (!child.running) throw new Error(`${this.name} exited (${describe(child.exit!)}) while starting:\n${tail(child.log().slice(from))}`);
        if (this.ports.http !== undefined && !(await httpOk(`${this.httpUrl}/health`))) return false;
        if (this.ports.smtp !== undefined && !(await tcpAnswers("127.0.0.1", this.ports.smtp))) return false;
        if (this.ports.ops !== undefined && !(await httpOk(`http://127.0.0.1:${this.ports.ops}/health`))) return false;
        if (this.ports.http === undefined && this.ports.smtp === undefined) return STARTED.test(child.log().slice(from));
        return true;
      },
      timeoutMs,
      100,
    );
  }

  /** kill -9: no clean-up of any kind runs in the process. */
  kill(): Promise<Exit> {
    return this.process.kill();
  }

  /** SIGTERM, as an orchestrator stops a container; SIGKILL only after `graceMs`. */
  terminate(graceMs: number): Promise<Exit> {
    return this.process.stop(graceMs);
  }

  async stop(): Promise<void> {
    if (this.child?.running) await this.child.stop(15_000);
  }
}

export function describe(exit: Exit): string {
  return exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
}

export function tail(text: string, lines = 20): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
