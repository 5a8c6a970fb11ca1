import { REFUSING_SIMS, parseSharedAddress, simBehaviourOf } from "@mailstop/core";
import { lookupRecipient } from "@mailstop/db";
import type { AcceptedRecipient, SmtpEdgeDeps } from "./deps";
import { assertAdmitted } from "./admission";
import { REPLY } from "./smtp-reply";

const SIM_REFUSALS = { "hard-bounce": REPLY.hardBounce, "soft-bounce": REPLY.softBounce, oversize: REPLY.oversize } as const;

/**
 * The receiving edge's decision for one RCPT: an inbox that exists (on the shared domain or a
 * verified domain), or a refusal, decided in the order of docs/smtp.md "The receiving edge".
 * `sim.*` tags behave as docs/inboxes-and-addresses.md describes them; the refusing ones need
 * no inbox (on a custom domain, a verified one), nor does a refused greylist attempt on the
 * shared domain. Throws the SMTP reply to send. `metered`: the project has a limit that counts
 * its mail, so the recipient must still be reserved (reservations.ts).
 */
export async function resolveReceivingRecipient(deps: SmtpEdgeDeps, recipient: string, sender: string): Promise<{ recipient: AcceptedRecipient; metered: boolean }> {
  const address = recipient.toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0) throw REPLY.unknownRecipient();
  const shared = parseSharedAddress(address, deps.config.sharedDomain);
  const onShared = address.slice(at + 1) === deps.config.sharedDomain;
  const tag = shared?.tag ?? address.slice(0, at);
  const sim = simBehaviourOf(tag);
  const refusing = sim !== null && REFUSING_SIMS.has(sim);

  const customDomain = onShared ? null : address.slice(at + 1);

  // The blocklist and the inbox (or, for a refusing sim on a custom domain, whether that
  // domain is verified) in one round trip, on the path of every message's 250. The decisions
  // below keep their order.
  const needsInbox = !refusing && !(onShared && shared === null);
  const { blocked, target, domainVerified } = await lookupRecipient(
    deps.db,
    address,
    !needsInbox ? null : shared !== null ? { kind: "shared", projectKey: shared.projectKey } : { kind: "custom" },
    refusing ? customDomain : null,
  );
  if (blocked) throw REPLY.blocked();

  if (onShared && shared === null) throw REPLY.notAnInboxAddress(address, deps.config.sharedDomain);
  // A custom domain receives only when verified, and only for its inboxes: a sim rehearses
  // there only on a verified domain, and nothing else waits for a greylist retry.
  if (customDomain !== null && (refusing ? domainVerified !== true : target === null)) throw REPLY.unknownRecipient();
  if (refusing) throw SIM_REFUSALS[sim as keyof typeof SIM_REFUSALS]();
  if (sim === "greylist" && (await deps.greylist.refuses(sender, address))) throw REPLY.greylisted();

  // A project's shared-domain address without its inbox: mail is accepted only for an inbox
  // that exists, and the reply says how to make it (an unknown project key reads the same).
  if (target === null) throw shared !== null ? REPLY.noSuchInbox(address, tag) : REPLY.unknownRecipient();
  assertAdmitted(target.admission);
  return {
    recipient: {
      address: recipient,
      projectId: target.projectId,
      projectKey: target.projectKey,
      inboxId: target.inboxId,
      sim: sim === "delay" || sim === "complaint" ? sim : null,
    },
    metered: target.admission.metered,
  };
}
