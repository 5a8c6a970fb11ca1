import type { TestServer } from "@mailstop/testkit";
import type { ParserDeps } from "./deps";

/** The parser's dependencies as a server started in the test's process holds them, for tests that run its jobs directly. */
export function parserDepsOf(server: TestServer, config = server.config): ParserDeps {
  const { context } = server.running;
  return { db: server.db, blobs: context.blobs!, queue: context.messaging!.queue, bus: context.messaging!.bus, config, logger: context.logger };
}
