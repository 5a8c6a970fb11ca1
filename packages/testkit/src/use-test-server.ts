import type { Schemas } from "@mailstop/client";
import type { Database } from "@mailstop/db";
import type { Selectable } from "kysely";
import { rawRequest } from "./http";
import { eventually, smtpTransport } from "./smtp";
import { type TestProject, type TestServer, startTestServer, uniqueTag } from "./test-server";

type StartOptions = NonNullable<Parameters<typeof startTestServer>[0]>;
type Mail = Parameters<ReturnType<typeof smtpTransport>["sendMail"]>[0];

export interface SuiteServerOptions extends StartOptions {
  /**
   * Whether to bootstrap the project requests use unless told otherwise, once the server is up
   * (the default); `false` when each test bootstraps its own.
   */
  project?: boolean;
}

/**
 * The server of a suite (a file or a describe block), started by {@link useTestServer}. It is
 * the TestServer itself once started, plus the suite's project and what the suites share:
 * reading any of it before the suite's `beforeAll` has run throws.
 */
export interface SuiteServer extends TestServer {
  /** The suite's project (not with `project: false`). */
  readonly project: TestProject;
  /** The suite's project's API key. */
  readonly apiKey: string;
  /** The receiving SMTP port (servers started with `mail: true`). */
  readonly smtpPort: number;
  /**
   * A raw HTTP call as a client makes it: a bearer key (the project's unless `apiKey` says
   * otherwise; null sends none) and, with `body`, that JSON.
   */
  request(method: string, path: string, options?: { body?: unknown; apiKey?: string | null; headers?: Record<string, string> }): ReturnType<typeof rawRequest>;
  /** Creates an inbox through the API (a unique tag unless `body` names one), of `owner` or the suite's project. */
  createInbox(body?: Partial<Schemas["CreateInboxRequest"]>, owner?: TestProject): Promise<Schemas["Inbox"]>;
  /** Sends `mail` through the receiving edge, from `noreply@acme.example` unless it says otherwise. */
  send(mail: Mail): ReturnType<ReturnType<typeof smtpTransport>["sendMail"]>;
  /** The stored row of the message with `subject` in the inbox, once the parser has written it. */
  stored(inboxId: string, subject: string): Promise<Selectable<Database["messages"]>>;
  /** Sends `mail` to the inbox and returns its stored row. */
  deliver(inbox: { id: string; address: string }, mail: Mail & { subject: string }): Promise<Selectable<Database["messages"]>>;
}

/**
 * Starts a test server for the enclosing suite in `beforeAll` and stops it in `afterAll`,
 * registering both hooks itself, so a suite states its set-up in one line. The server is
 * whatever {@link startTestServer} starts in this world (in the `fleet` world the run's shared
 * fleet, or a fleet of its own for settings of its own). `options` may be a function, called in the hook: for settings known only once an
 * earlier `beforeAll` has run (a Redis of the suite's own, a database it created).
 */
export function useTestServer(options: SuiteServerOptions | (() => SuiteServerOptions | Promise<SuiteServerOptions>) = {}): SuiteServer {
  const suite = new StartedSuiteServer();
  beforeAll(async () => {
    const { project = true, ...start } = typeof options === "function" ? await options() : options;
    await suite.start(start, project);
  });
  afterAll(() => suite.stop());
  return suite;
}

/** The members of the started TestServer a suite reads through to, as they are when read. */
const READ_THROUGH = ["url", "smtp", "s3", "config", "running", "db", "blobs", "admin", "logs", "printed", "client", "bootstrap"] as const satisfies readonly (keyof TestServer)[];

// The class has them from the accessors its static block defines.
interface StartedSuiteServer extends Pick<TestServer, (typeof READ_THROUGH)[number]> {}

class StartedSuiteServer implements SuiteServer {
  #server: TestServer | undefined;
  #project: TestProject | undefined;

  static {
    for (const name of READ_THROUGH) {
      Object.defineProperty(this.prototype, name, {
        get(this: StartedSuiteServer) {
          const server = this.server;
          const member: unknown = server[name];
          return typeof member === "function" ? member.bind(server) : member;
        },
      });
    }
  }

  async start(options: StartOptions, project: boolean): Promise<void> {
    this.#server = await startTestServer(options);
    if (project) this.#project = await this.#server.bootstrap();
  }

  private get server(): TestServer {
    if (this.#server === undefined) throw new Error("the suite's test server is not started: read it in a test, or in a hook after useTestServer's");
    return this.#server;
  }

  get project(): TestProject {
    if (this.#project === undefined) throw new Error(this.#server === undefined ? "the suite's test server is not started yet" : "this suite has no project (useTestServer with project: false)");
    return this.#project;
  }

  get apiKey(): string {
    return this.project.apiKey;
  }

  get smtpPort(): number {
    const { smtp } = this.server;
    if (smtp === null) throw new Error("this suite's server receives no mail: start it with mail: true");
    return smtp.receiving;
  }

  /** Stops the server; nothing to do when it never started (its beforeAll failed). */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#project = undefined;
    await server?.stop();
  }

  request(method: string, path: string, options: { body?: unknown; apiKey?: string | null; headers?: Record<string, string> } = {}) {
    const apiKey = options.apiKey === undefined ? this.apiKey : options.apiKey;
    const headers: Record<string, string> = {
      ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    };
    return rawRequest(this.url, method, path, { headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  }

  async createInbox(body: Partial<Schemas["CreateInboxRequest"]> = {}, owner: TestProject = this.project): Promise<Schemas["Inbox"]> {
    const { data, error } = await owner.client.POST("/v1/inboxes", { body: { tag: uniqueTag("inbox"), ...body } });
    if (error || !data) throw new Error(`creating an inbox failed: ${JSON.stringify(error)}`);
    return data;
  }

  send(mail: Mail) {
    return smtpTransport(this.smtpPort).sendMail({ from: "noreply@acme.example", ...mail });
  }

  stored(inboxId: string, subject: string): Promise<Selectable<Database["messages"]>> {
    return eventually(() => this.db.selectFrom("messages").selectAll().where("inbox_id", "=", inboxId).where("subject", "=", subject).executeTakeFirst(), {
      what: `message "${subject}"`,
    });
  }

  async deliver(inbox: { id: string; address: string }, mail: Mail & { subject: string }): Promise<Selectable<Database["messages"]>> {
    await this.send({ to: inbox.address, ...mail });
    return this.stored(inbox.id, mail.subject);
  }
}
