import type { Readable } from "node:stream";
import { withinDeadline } from "@mailstop/core";
import type { AuthenticationCheck } from "@mailstop/db";
import type { AuthenticateResult } from "mailauth";
import { DNS_MESSAGE_DEADLINE_MS, budgetedResolver } from "./dns-budget";

/** The connection a message came over, as the edge recorded it (null when not recorded). */
export interface Connection {
  address: string | null;
  helo: string | null;
  mailFrom: string | null;
}

type Dkim = AuthenticationCheck["dkim"][number];

// Required on the first check, not at start (require caches it after): mailauth brings joi,
// undici and an ASN.1 stack (for BIMI certificates), ~14 MB of heap that a process checking no
// message never needs (docs/performance.md "What a process loads").
const loadMailauth = () => require("mailauth") as typeof import("mailauth");

// mailauth reports a key that cannot be used (absent, unparseable, of an unknown version or
// type) as neutral; RFC 6376 §6.1.2 makes each a PERMFAIL, `permerror` in RFC 8601's words.
const KEY_PERMFAILS = new Set(["no key", "unknown key version", "unknown key type", "invalid public key"]);
// And a body that does not match its signature's hash as neutral too (as Gmail reports it);
// RFC 6376 §6.1.3 makes it a failed verification, `fail` in RFC 8601's words.
const BODY_HASH_MISMATCH = "body hash did not verify";
const DKIM_RESULTS = new Set<string>(["pass", "fail", "neutral", "policy", "temperror", "permerror", "none"]);
const SPF_RESULTS = new Set<string>(["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror"]);
const DMARC_RESULTS = new Set<string>(["pass", "fail", "none", "temperror", "permerror"]);

const word = <T extends string>(known: Set<string>, result: string | undefined, otherwise: T): T => {
  const normalised = result === "temperr" ? "temperror" : result;
  return normalised !== undefined && known.has(normalised) ? (normalised as T) : otherwise;
};

function dkimOf(result: AuthenticateResult["dkim"]): Dkim[] {
  return (result.results ?? [])
    .filter((signature) => signature.signingDomain)
    .map((signature) => {
      const { result: verdict, comment, aligned } = signature.status;
      const why = verdict === "neutral" && typeof comment === "string" ? comment : null;
      const result: Dkim["result"] = why !== null && KEY_PERMFAILS.has(why) ? "permerror" : why === BODY_HASH_MISMATCH ? "fail" : word(DKIM_RESULTS, verdict, "neutral");
      return {
        domain: signature.signingDomain,
        selector: signature.selector ?? "",
        result,
        aligned: Boolean(aligned),
      };
    });
}

/** The message's verdict from its parts (docs/api.md "Message checks"). */
export function authenticationStatus(check: Omit<AuthenticationCheck, "status">): AuthenticationCheck["status"] {
  if (check.dmarc.result === "pass") return "pass";
  if (check.dmarc.result === "fail") return "fail";
  if (check.dmarc.result === "temperror" || check.spf.result === "temperror" || check.dkim.some((d) => d.result === "temperror")) return "temperror";
  if (check.dkim.some((d) => d.result === "pass" && d.aligned)) return "pass";
  if (check.dkim.length > 0 && check.dkim.every((d) => d.result !== "pass")) return "fail";
  return "none";
}

/** What a message whose checks ran out of time says: nothing could be verified. */
function timedOut(connection: Connection): AuthenticationCheck {
  const domain = connection.mailFrom?.split("@").pop()?.toLowerCase() ?? null;
  return { status: "temperror", dkim: [], spf: { domain, result: "temperror" }, dmarc: { domain: null, policy: null, result: "temperror" }, arc: { result: "temperror" } };
}

/**
 * Checks a raw source's DKIM signatures, SPF for the connection, DMARC for its From domain and
 * its ARC chain, with mailauth; DNS through `dnsServers` within the lookup and message
 * deadlines (a lookup that runs out is temperror, and so is the whole check when it does).
 * Never rejects: a failure of the check itself is temperror too, so a message is always stored.
 */
export async function checkAuthentication(raw: Readable | Buffer, connection: Connection, dnsServers: readonly string[] | null): Promise<AuthenticationCheck> {
  const dns = budgetedResolver(dnsServers);
  try {
    const result = await withinDeadline(
      loadMailauth().authenticate(raw, {
        ...(connection.address ? { ip: connection.address } : {}),
        ...(connection.helo ? { helo: connection.helo } : {}),
        ...(connection.mailFrom ? { sender: connection.mailFrom } : {}),
        mta: "mailstop",
        resolver: dns.lookup,
        disableBimi: true,
      }),
      // A little past the DNS budget: the lookups end themselves by then, this catches the rest.
      DNS_MESSAGE_DEADLINE_MS + 1_000,
      "the authentication checks",
    );
    // Without the client's address (a job from before the edge recorded it) SPF cannot be evaluated.
    const spf = result.spf && connection.address ? { domain: result.spf.domain ?? null, result: word<AuthenticationCheck["spf"]["result"]>(SPF_RESULTS, result.spf.status.result, "none") } : { domain: connection.mailFrom?.split("@").pop()?.toLowerCase() ?? null, result: "none" as const };
    const dmarc = result.dmarc
      ? {
          domain: result.dmarc.domain ?? null,
          policy: (["none", "quarantine", "reject"].includes(result.dmarc.policy) ? result.dmarc.policy : null) as AuthenticationCheck["dmarc"]["policy"],
          result: word<AuthenticationCheck["dmarc"]["result"]>(DMARC_RESULTS, result.dmarc.status.result, "none"),
        }
      : { domain: null, policy: null, result: "none" as const };
    const parts = { dkim: dkimOf(result.dkim), spf, dmarc, arc: { result: result.arc ? (result.arc.status.result === "temperr" ? "temperror" : result.arc.status.result) : "none" } };
    return { status: authenticationStatus(parts), ...parts };
  } catch {
    return timedOut(connection);
  } finally {
    dns.close();
  }
}
