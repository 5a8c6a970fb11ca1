import { generateKeyPairSync } from "node:crypto";

// dns2 ships no types; this is the part of its API the test DNS server uses.
type Dns2Packet = {
  questions: { name: string; type: number }[];
  header: { rcode: number };
  answers: Record<string, unknown>[];
};
type Dns2Module = {
  Packet: { TYPE: Record<"A" | "AAAA" | "TXT" | "MX", number>; CLASS: { IN: number }; createResponseFromRequest(request: Dns2Packet): Dns2Packet };
  createServer(options: { udp: boolean; handle: (request: Dns2Packet, send: (response: Dns2Packet) => void) => void }): {
    listen(options: { udp: { port: number; address: string; type: "udp4" } }): Promise<unknown>;
    addresses(): { udp: { port: number } };
    close(): Promise<void>;
  };
};

export interface DnsZone {
  /** IPv4 addresses, dotted. */
  a?: string[];
  /** IPv6 addresses, written out in hex groups (`::ffff:7f00:1`, not `::ffff:127.0.0.1`: dns2 encodes only hex). */
  aaaa?: string[];
  txt?: string[];
  mx?: { exchange: string; priority: number }[];
  /** Never answer questions about this name: the resolver times out. */
  silent?: boolean;
}

export interface TestDns {
  /** `127.0.0.1:<port>`, for MAILSTOP_DNS_SERVERS. */
  server: string;
  /**
   * Publishes (replacing) the records of one name; unknown names answer NXDOMAIN. A function is
   * asked at every question, with its type (`A`, `AAAA`, `TXT`, `MX`): a name whose answer
   * changes from one lookup to the next.
   */
  set(name: string, zone: DnsZone | ((type: string) => DnsZone)): void;
  remove(name: string): void;
  /** Questions asked so far, as `TYPE name`. */
  questions(): string[];
  stop(): Promise<void>;
}

const NXDOMAIN = 3;
const RECORD_TYPES = ["A", "AAAA", "TXT", "MX"] as const;

/**
 * A real DNS server on loopback UDP (npm dns2) whose records a test publishes, withholds and
 * changes while mailstop resolves through it.
 */
export async function startTestDns(): Promise<TestDns> {
  const dns2 = require("dns2") as Dns2Module;
  const { Packet } = dns2;
  const zones = new Map<string, DnsZone | ((type: string) => DnsZone)>();
  const asked: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0]!;
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const type = RECORD_TYPES.find((known) => Packet.TYPE[known] === question.type) ?? String(question.type);
      asked.push(`${type} ${name}`);
      const published = zones.get(name);
      const zone = typeof published === "function" ? published(type) : published;
      if (zone?.silent) return;
      const answer = (fields: Record<string, unknown>) => response.answers.push({ name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: 1, ...fields });
      if (zone === undefined) response.header.rcode = NXDOMAIN;
      else if (type === "A") for (const address of zone.a ?? []) answer({ address });
      else if (type === "AAAA") for (const address of zone.aaaa ?? []) answer({ address });
      else if (type === "TXT") for (const data of zone.txt ?? []) answer({ data });
      else if (type === "MX") for (const mx of zone.mx ?? []) answer({ ...mx });
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1", type: "udp4" } });
  return {
    server: `127.0.0.1:${server.addresses().udp.port}`,
    set: (name, zone) => void zones.set(name.toLowerCase(), zone),
    remove: (name) => void zones.delete(name.toLowerCase()),
    questions: () => [...asked],
    stop: () => server.close(),
  };
}

/**
 * Set by the global setups: a loopback DNS server of the run that answers NXDOMAIN to every
 * name. Every test server and fleet resolves through it unless a test gives its own
 * MAILSTOP_DNS_SERVERS, so the parser's authentication checks of the suite's mail (senders at
 * example.com and the like) never ask the machine's resolvers, and answer alike everywhere.
 */
export const RUN_DNS_ENV = "MAILSTOP_TEST_RUN_DNS";

/**
 * Starts the run's DNS server (global setup) and names it in the environment the workers
 * inherit; resolves to its stop. One per `jest` process: the projects of one run (integration,
 * embedded, fleet) run their global setups in the same process, and the fleet started by one
 * must resolve where the workers of all are told to; the later setups get a stop that does nothing.
 */
export async function startRunDns(): Promise<() => Promise<void>> {
  if (process.env[RUN_DNS_ENV] !== undefined) return async () => undefined;
  const dns = await startTestDns();
  process.env[RUN_DNS_ENV] = dns.server;
  // The mailstop processes tests start themselves (a compiled bin, `pnpm start`, a crash test's
  // child) inherit the environment: they resolve through it too.
  process.env.MAILSTOP_DNS_SERVERS ??= dns.server;
  return () => dns.stop();
}

/** MAILSTOP_DNS_SERVERS of the run's DNS server, when a global setup started one. */
export function runDnsEnv(): Record<string, string> {
  const server = process.env[RUN_DNS_ENV];
  return server === undefined ? {} : { MAILSTOP_DNS_SERVERS: server };
}

/** A DKIM key pair of the tests: the TXT record that publishes it, and the PEM nodemailer's `dkim` option signs with. */
export interface TestDkimKey {
  record: string;
  privateKey: string;
}

/** A fresh RSA key (1024 bits: fast to make, enough for a test) as a DKIM record and a private key. */
export function testDkimKey(): TestDkimKey {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
  return {
    record: `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`,
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/**
 * Publishes a sending domain on `dns`: `key` at `<selector>._domainkey.<domain>` and an SPF
 * record listing loopback, where the suite's mail comes from. Mail signed with the key and
 * sent over loopback passes DKIM and SPF.
 */
export function publishSendingDomain(dns: TestDns, domain: string, key: TestDkimKey, selector = "s1"): void {
  dns.set(`${selector}._domainkey.${domain}`, { txt: [key.record] });
  dns.set(domain, { txt: ["v=spf1 ip4:127.0.0.1 ip6:::1 -all"] });
}
