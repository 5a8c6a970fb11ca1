// dns2 ships no types; this is the part of its API the test DNS server uses.
type Dns2Packet = {
  questions: { name: string; type: number }[];
  header: { rcode: number };
  answers: Record<string, unknown>[];
};
type Dns2Module = {
  Packet: { TYPE: Record<"TXT" | "MX", number>; CLASS: { IN: number }; createResponseFromRequest(request: Dns2Packet): Dns2Packet };
  createServer(options: { udp: boolean; handle: (request: Dns2Packet, send: (response: Dns2Packet) => void) => void }): {
    listen(options: { udp: { port: number; address: string; type: "udp4" } }): Promise<unknown>;
    addresses(): { udp: { port: number } };
    close(): Promise<void>;
  };
};

export interface DnsZone {
  txt?: string[];
  mx?: { exchange: string; priority: number }[];
  /** Never answer questions about this name: the resolver times out. */
  silent?: boolean;
}

export interface TestDns {
  /** `127.0.0.1:<port>`, for MAILSTOP_DNS_SERVERS. */
  server: string;
  /** Publishes (replacing) the records of one name; unknown names answer NXDOMAIN. */
  set(name: string, zone: DnsZone): void;
  remove(name: string): void;
  /** Questions asked so far, as `TYPE name`. */
  questions(): string[];
  stop(): Promise<void>;
}

const NXDOMAIN = 3;

/**
 * A real DNS server on loopback UDP (npm dns2) whose records a test publishes, withholds and
 * changes while mailstop resolves through it.
 */
export async function startTestDns(): Promise<TestDns> {
  const dns2 = require("dns2") as Dns2Module;
  const { Packet } = dns2;
  const zones = new Map<string, DnsZone>();
  const asked: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0]!;
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const type = question.type === Packet.TYPE.TXT ? "TXT" : question.type === Packet.TYPE.MX ? "MX" : String(question.type);
      asked.push(`${type} ${name}`);
      const zone = zones.get(name);
      if (zone?.silent) return;
      if (zone === undefined) response.header.rcode = NXDOMAIN;
      else if (type === "TXT") for (const data of zone.txt ?? []) response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data });
      else if (type === "MX") for (const mx of zone.mx ?? []) response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 1, ...mx });
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
