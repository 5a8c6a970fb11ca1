import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { HttpContribution } from "@mailstop/http";
import type { Logger } from "@mailstop/logging";

/** A running part of mailstop. Started in dependency order, stopped in reverse. */
export interface ServiceModule {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True when the module can do its work (its dependencies are reachable). */
  ready(): Promise<boolean>;
}

/** What modules share within one process; each field is set by the module that owns it. */
export interface RuntimeContext {
  config: Config;
  logger: Logger;
  /** Writes operator-facing text (first-start credentials) outside the structured log. */
  print: (text: string) => void;
  /** Set by the database module. */
  db?: Db;
  /** Routes that the api and waiter modules add to the one HTTP listener. */
  http: HttpContribution[];
  /** Set by the http-server module once it listens. */
  httpAddress?: { host: string; port: number };
}

export function requireDb(context: RuntimeContext): Db {
  if (!context.db) throw new Error("the database module must start before this module");
  return context.db;
}
