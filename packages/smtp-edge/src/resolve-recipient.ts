import { REFUSING_SIMS, parseSharedAddress, simBehaviourOf } from "@mailstop/core";
import { type DeliveryTarget, findCustomDeliveryTarget, findSharedDeliveryTarget, isBlockedRecipient } from "@mailstop/db";
import type { AcceptedRecipient, SmtpEdgeDeps } from "./deps";
import { assertUnderIngestCeiling } from "./ingest-ceiling";
import { REPLY } from "./smtp-reply";

const SIM_REFUSALS = { "hard-bounce": REPLY.hardBounce, "soft-bounce": REPLY.softBounce, oversize: REPLY.oversize } as const;

/**
 * The receiving edge's decision for one RCPT: an inbox that exists (on the shared domain or a
 * verified domain), or a refusal. `sim.*` tags behave as SPEC.md's table; the refusing ones
 * need no inbox, nor does a refused greylist attempt. Throws the SMTP reply to send.
 */
export async function resolveReceivingRecipient(deps: SmtpEdgeDeps, recipient: string, sender: string): Promise<AcceptedRecipient> {
  const address = recipient.toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0) throw REPLY.unknownRecipient();
  const shared = parseSharedAddress(address, deps.config.sharedDomain);
  const onShared = address.slice(at + 1) === deps.config.sharedDomain;
  const tag = shared?.tag ?? address.slice(0, at);
  const sim = simBehaviourOf(tag);
  const refusing = sim !== null && REFUSING_SIMS.has(sim);

  // The blocklist and the inbox are looked up together: one database round trip at RCPT
  // instead of two, on the path of every message's 250. The decisions below keep their order.
  const blocked = isBlockedRecipient(deps.db, address);
  const lookup: Promise<DeliveryTarget | null> =
    refusing || (onShared && shared === null)
      ? Promise.resolve(null)
      : shared !== null
        ? findSharedDeliveryTarget(deps.db, shared.projectKey, address)
        : findCustomDeliveryTarget(deps.db, address);
  // Whichever decision comes first, the other lookup must not end as an unhandled rejection.
  lookup.catch(() => undefined);
  if (await blocked) throw REPLY.blocked();

  if (onShared && shared === null) throw REPLY.unknownRecipient();
  if (refusing) throw SIM_REFUSALS[sim as keyof typeof SIM_REFUSALS]();
  if (sim === "greylist" && (await deps.greylist.refuses(sender, address))) throw REPLY.greylisted();

  const target = await lookup;
  if (target === null) throw REPLY.unknownRecipient();
  await assertUnderIngestCeiling(deps.db, target.projectId, target.ingestCeiling);
  return {
    address: recipient,
    projectId: target.projectId,
    projectKey: target.projectKey,
    inboxId: target.inboxId,
    sim: sim === "delay" || sim === "complaint" ? sim : null,
  };
}
