import { loadConfig } from "@mailstop/config";
import { planTarget } from "./targets";

const ENGINES = {
  DATABASE_URL: "postgres://db.example/mailstop",
  REDIS_URL: "redis://redis.example:6379",
  S3_ENDPOINT: "http://s3.example:9000",
};
const SHARED = { MAILSTOP_SECRETS_KEY: "ab".repeat(32) };

describe("planTarget", () => {
  it("runs the monolith on a stand-in for each engine not configured, and on the others' real engines", () => {
    expect(planTarget("all", loadConfig({})).embedded).toEqual(["database", "object-store", "messaging"]);
    expect(planTarget("all", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL })).embedded).toEqual(["object-store", "messaging"]);
    expect(planTarget("all", loadConfig(ENGINES)).embedded).toEqual([]);
  });

  it("starts the monolith's modules in dependency order, whatever its engines; the parser before the SMTP edge (on PGlite its start queues again what a crash left open, before new mail comes in)", () => {
    for (const env of [{}, ENGINES]) {
      expect(planTarget("all", loadConfig(env), 2).order).toEqual(["database", "first-start", "object-store", "messaging", "secrets", "parser", "smtp-edge", "waiter", "api", "http-server"]);
    }
  });

  it("runs the monolith's parser on a worker thread on PostgreSQL and Redis, whatever the object store: with MAILSTOP_PARSER_THREAD=on, or auto on 4 cores or more", () => {
    const threaded = ["database", "first-start", "object-store", "messaging", "secrets", "parser-thread", "smtp-edge", "waiter", "api", "http-server"];
    const on = { MAILSTOP_PARSER_THREAD: "on" };
    expect(planTarget("all", loadConfig({ ...ENGINES, ...on }), 2).order).toEqual(threaded);
    expect(planTarget("all", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, REDIS_URL: ENGINES.REDIS_URL, ...on }), 2).order).toEqual(threaded);
    expect(planTarget("all", loadConfig(ENGINES), 4).order).toEqual(threaded);
    expect(planTarget("all", loadConfig(ENGINES), 3).order).toContain("parser");
    expect(planTarget("all", loadConfig({ ...ENGINES, MAILSTOP_PARSER_THREAD: "off" }), 64).order).toContain("parser");
    // The embedded database and the in-process queues live in the main thread's memory.
    expect(planTarget("all", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, ...on }), 64).order).toContain("parser");
    expect(planTarget("all", loadConfig({ REDIS_URL: ENGINES.REDIS_URL, ...on }), 64).order).toContain("parser");
    // A split parser is the parser itself.
    expect(planTarget("parser", loadConfig({ ...ENGINES, ...SHARED, ...on }), 64).order).toContain("parser");
  });

  it("refuses a split target whose engine is missing, naming the setting", () => {
    expect(() => planTarget("waiter", loadConfig({}))).toThrow(/DATABASE_URL.*only target all runs on embedded stand-ins/);
    expect(() => planTarget("parser", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, REDIS_URL: ENGINES.REDIS_URL }))).toThrow(/S3_ENDPOINT/);
    expect(() => planTarget("smtp-edge", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, S3_ENDPOINT: ENGINES.S3_ENDPOINT }))).toThrow(/REDIS_URL/);
    expect(planTarget("parser", loadConfig({ ...ENGINES, ...SHARED }))).toEqual({ order: ["ops-server", "database", "object-store", "messaging", "secrets", "parser"], skipped: [], embedded: [] });
  });

  it("refuses the api and the parser without MAILSTOP_SECRETS_KEY, which the fleet must share; the monolith and the waiter need none", () => {
    expect(() => planTarget("api", loadConfig(ENGINES))).toThrow(/MAILSTOP_SECRETS_KEY.*every process of the fleet/);
    expect(() => planTarget("parser", loadConfig(ENGINES))).toThrow(/MAILSTOP_SECRETS_KEY/);
    expect(planTarget("waiter", loadConfig(ENGINES)).order).not.toContain("secrets");
    expect(planTarget("all", loadConfig(ENGINES)).order).toContain("secrets");
  });

  it("refuses the api without REDIS_URL: every api instance counts rate limits in the same buckets", () => {
    expect(() => planTarget("api", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, S3_ENDPOINT: ENGINES.S3_ENDPOINT, ...SHARED }))).toThrow(/messaging needs REDIS_URL/);
  });

  it("lets the api serve without an object store, reporting what it left out", () => {
    expect(planTarget("api", loadConfig({ DATABASE_URL: ENGINES.DATABASE_URL, REDIS_URL: ENGINES.REDIS_URL, ...SHARED }))).toEqual({
      order: ["database", "messaging", "secrets", "api", "http-server"],
      skipped: [{ module: "object-store", missing: ["S3_ENDPOINT"] }],
      embedded: [],
    });
  });
});

describe("the operations listener", () => {
  it("starts first and so stops last in the targets without an HTTP listener, and nowhere else", () => {
    const config = loadConfig({ ...ENGINES, ...SHARED });
    for (const target of ["smtp-edge", "parser"] as const) expect(planTarget(target, config).order[0]).toBe("ops-server");
    for (const target of ["api", "waiter", "all"] as const) expect(planTarget(target, config).order).not.toContain("ops-server");
  });
});
