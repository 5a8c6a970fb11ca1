import { type TestDns, startTestDns } from "./dns";
import { useOwnDatabase } from "./use-own-database";
import { type SuiteServer, useTestServer } from "./use-test-server";
import { type TestReceiver, startTestReceiver } from "./webhook-receiver";

/** A suite that delivers webhooks to receivers of its own (see {@link useWebhookTestServer}). */
export interface WebhookSuite {
  server: SuiteServer;
  /** The suite's DNS server, which the server's guard resolves names with. */
  dns(): TestDns;
  /** Starts a receiver (127.0.0.2, the one network endpoints may reach, by default), stopped after the suite. */
  receiver(host?: string, port?: number): Promise<TestReceiver>;
}

/**
 * Starts, for the enclosing suite, a server that delivers webhooks: mail on (the parser target
 * runs the delivery worker), a test DNS server, `127.0.0.2/32` the one network endpoints may
 * reach, and a database of the suite's own in the integration world (every parser delivers
 * its database's events: another suite's server would take these). `env` adds settings.
 */
export function useWebhookTestServer(databasePrefix: string, env: Record<string, string> = {}): WebhookSuite {
  let dns: TestDns | undefined;
  const receivers: TestReceiver[] = [];
  beforeAll(async () => {
    dns = await startTestDns();
  });
  const server = useTestServer(async () => ({
    mail: true,
    env: { ...(await ownDatabase.env()), MAILSTOP_DNS_SERVERS: dns!.server, MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.2/32", ...env },
  }));
  // After the server's own afterAll (hooks run in the order they are declared).
  const ownDatabase = useOwnDatabase(databasePrefix);
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await dns?.stop();
  });
  return {
    server,
    dns: () => {
      if (dns === undefined) throw new Error("the suite's DNS server is not started yet");
      return dns;
    },
    async receiver(host = "127.0.0.2", port = 0) {
      const started = await startTestReceiver(host, port);
      receivers.push(started);
      return started;
    },
  };
}
