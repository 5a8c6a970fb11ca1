import { sql } from "kysely";
import pg from "pg";
import { type TcpProxy, eventually, expectError, runDatabaseUrl, startTcpProxy, useTestServer } from "@mailstop/testkit";

/** The run's database, reached through a proxy the test can cut (the shared PostgreSQL itself is never stopped). */
function throughProxy(proxy: TcpProxy): string {
  const url = new URL(runDatabaseUrl());
  url.host = `127.0.0.1:${proxy.port}`;
  return url.toString();
}

describe("the database lost under a running server", () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(runDatabaseUrl());
    proxy = await startTcpProxy(Number(target.port || 5432));
  });
  const server = useTestServer(() => ({ databaseUrl: throughProxy(proxy) }));
  afterAll(() => proxy.close());

  const listInboxes = () => server.request("GET", "/v1/inboxes");

  it("does not take the process down when PostgreSQL ends a connection in use (pg_terminate_backend)", async () => {
    const marker = `outage_${Date.now()}`;
    // A checked-out client of the server's own pool, busy with a query when its backend is ended.
    const busy = sql`select pg_sleep(30), ${marker}::text as marker`.execute(server.db);
    const admin = new pg.Client({ connectionString: runDatabaseUrl() });
    await admin.connect();
    try {
      const pid = await eventually(
        async () => {
          const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where query like $1 and pid <> pg_backend_pid()", [`%pg_sleep(30)%`]);
          return rows[0]?.pid ?? null;
        },
        { what: "the busy query to be running" },
      );
      await admin.query("select pg_terminate_backend($1)", [pid]);
    } finally {
      await admin.end();
    }
    // Without a listener on the checked-out client its 'error' event is thrown, an uncaught
    // exception that ends the process (and fails this test); with one, only the query fails.
    await expect(busy).rejects.toThrow();
    // The ended client may go back to the pool before its socket closes (the termination
    // arrives as the query's error), so the next request can still meet it: a 503, never a 500.
    await eventually(async () => {
      const answer = await listInboxes();
      if (answer.status !== 200) expectError(answer, { status: 503, code: "internal", retryable: true });
      return answer.status === 200 ? true : null;
    }, { what: "a 200 after the connection was ended" });
  });

  it("answers 503, retryable, while PostgreSQL cannot be reached, and 200 once it is back", async () => {
    proxy.sever();
    try {
      // The pool's idle clients are cut too, and every new connection is dropped as it opens.
      for (let i = 0; i < 3; i++) {
        const response = await listInboxes();
        expectError(response, { status: 503, code: "internal", retryable: true });
        expect(response.headers.get("retry-after")).toBe("1");
      }
    } finally {
      proxy.mend();
    }
    await eventually(async () => ((await listInboxes()).status === 200 ? true : null), { what: "a 200 once the database is back" });
  });
});
