import { Resolver } from "node:dns/promises";
import type { DomainCheck } from "@mailstop/db";

/** The TXT record's owner name and value, and the MX's preference: what a user publishes. */
export const VERIFICATION_LABEL = "_mailstop-verification";
export const verificationValue = (token: string) => `mailstop-verification=${token}`;
export const MX_PRIORITY = 10;
/** How long a verification may take, all lookups together. */
export const DNS_TIMEOUT_MS = 5_000;

export interface DnsRecordToPublish {
  type: "TXT" | "MX";
  name: string;
  value: string;
  priority?: number;
}

export function recordsToPublish(domain: string, token: string, mxHost: string): DnsRecordToPublish[] {
  return [
    { type: "TXT", name: `${VERIFICATION_LABEL}.${domain}`, value: verificationValue(token) },
    { type: "MX", name: domain, value: mxHost, priority: MX_PRIORITY },
  ];
}

/** `host:port` entries as node's resolver takes them (an IPv6 host in brackets). */
function resolverServers(servers: string[]): string[] {
  return servers.map((server) => {
    const colon = server.lastIndexOf(":");
    const host = server.slice(0, colon);
    return host.includes(":") && !host.startsWith("[") ? `[${host}]${server.slice(colon)}` : server;
  });
}

const sameHost = (a: string, b: string) => a.replace(/\.$/, "").toLowerCase() === b.replace(/\.$/, "").toLowerCase();

/** What a failed lookup means to the person publishing the record. */
function lookupError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "ENOTFOUND" || code === "ENODATA") return "no such record";
  if (code === "ETIMEOUT" || code === "ECANCELLED") return `no answer within ${DNS_TIMEOUT_MS / 1000} s`;
  return `DNS error ${code ?? String(error)}`;
}

/**
 * Looks up a domain's ownership TXT and its MX, through `servers` (MAILSTOP_DNS_SERVERS) or the
 * system's resolvers, both lookups together within DNS_TIMEOUT_MS. Verified means both: a TXT
 * string equal to the expected value, and an MX naming `mxHost` (case and a trailing dot
 * ignored). A lookup that fails or times out counts as missing: the domain stays pending.
 */
export class DnsVerifier {
  constructor(
    private readonly servers: string[] | null,
    private readonly mxHost: string,
  ) {}

  async check(domain: string, token: string): Promise<DomainCheck> {
    // A resolver per check: cancel() ends only this check's lookups when the deadline passes.
    const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
    if (this.servers !== null) resolver.setServers(resolverServers(this.servers));
    const deadline = setTimeout(() => resolver.cancel(), DNS_TIMEOUT_MS);
    try {
      const txtName = `${VERIFICATION_LABEL}.${domain}`;
      const expected = verificationValue(token);
      const [txt, mx] = await Promise.allSettled([resolver.resolveTxt(txtName), resolver.resolveMx(domain)]);
      const txtFound = txt.status === "fulfilled" && txt.value.some((chunks) => chunks.join("") === expected);
      const mxFound = mx.status === "fulfilled" && mx.value.some((record) => sameHost(record.exchange, this.mxHost));
      const notes = [
        txt.status === "rejected"
          ? `TXT ${txtName}: ${lookupError(txt.reason)}`
          : `TXT ${txtName}: ${txtFound ? "found" : `${txt.value.length} record(s), none equal to "${expected}"`}`,
        mx.status === "rejected"
          ? `MX ${domain}: ${lookupError(mx.reason)}`
          : `MX ${domain}: ${mxFound ? this.mxHost : `${mx.value.map((record) => record.exchange).join(", ") || "none"}, not ${this.mxHost}`}`,
      ];
      const missing: DomainCheck["missing"] = [...(txtFound ? [] : ["txt" as const]), ...(mxFound ? [] : ["mx" as const])];
      return { ok: missing.length === 0, missing, detail: notes.join("; ") };
    } finally {
      clearTimeout(deadline);
    }
  }
}
