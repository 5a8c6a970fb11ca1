import { RUN_DNS_ENV, useTestServer } from "@mailstop/testkit";

// The suite's mail comes from senders at example.com and the like, whose DKIM, SPF and DMARC
// the parser looks up. Those lookups go to the run's loopback DNS server, never to the
// machine's resolvers: a test talks to 127.0.0.1 only, and answers the same on every machine.
const server = useTestServer({ mail: true });

describe("the suite's DNS", () => {
  it("is the run's loopback DNS server, in every world", () => {
    const runDns = process.env[RUN_DNS_ENV];
    expect(runDns).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.config.dnsServers).toEqual([runDns]);
  });
});
