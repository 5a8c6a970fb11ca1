import { type AuditSource, DOMAIN_VERIFY_RETRY_SECONDS, MailstopError, RETENTION_SECONDS, captureTag, inboxAddress, isId, looksLikeAddress, newId } from "@mailstop/core";
import { type Db, type Domain, type Inbox, type Labels, audited, ensureInbox, findDomainByName, findInboxByAddress, findInboxById } from "@mailstop/db";
import type { AuthContext } from "@mailstop/http";
import { invalidRequest } from "@mailstop/openapi";

/**
 * The receiving domain an inbox request names: null for the shared domain (omitted, or the
 * shared domain spelled out), else a verified domain of this project.
 */
export async function resolveReceivingDomain(db: Db, projectId: string, requested: string | undefined, sharedDomain: string): Promise<Domain | null> {
  if (requested === undefined || requested.toLowerCase() === sharedDomain) return null;
  const domain = await findDomainByName(db, projectId, requested);
  if (domain === null) {
    throw new MailstopError("domain_not_found", `No domain ${requested.toLowerCase()} on this project; add it with POST /v1/domains.`, {
      details: { domain: requested.toLowerCase() },
    });
  }
  if (domain.status !== "verified") {
    throw new MailstopError("domain_not_verified", `Domain ${domain.domain} is not verified yet; publish its DNS records and verify it.`, {
      details: { domain: domain.domain },
      retryAfterSeconds: DOMAIN_VERIFY_RETRY_SECONDS,
    });
  }
  return domain;
}

export interface InboxRequest {
  tag: string;
  domain: Domain | null;
  labels: Labels;
  retentionSeconds: number | undefined;
  /**
   * The request field the tag comes from, when the address's local part must fit SMTP's 64
   * octets (create and for-run). Fixtures keep their own limits (a run id of up to 96
   * characters; docs/inboxes-and-addresses.md "Fixtures"), so theirs is not checked.
   */
  localPartFrom?: string;
}

/** RFC 5321 4.5.3.1.1: a local part is at most 64 octets; senders and relays refuse longer ones. */
export const LOCAL_PART_MAX_OCTETS = 64;

function requireDeliverable(address: string, field: string): void {
  const localPart = address.slice(0, address.lastIndexOf("@"));
  const octets = Buffer.byteLength(localPart, "utf8");
  if (octets <= LOCAL_PART_MAX_OCTETS) return;
  invalidRequest(
    [{ in: "body", path: field, message: `makes the address's local part ${octets} octets long; SMTP allows at most ${LOCAL_PART_MAX_OCTETS}` }],
    `No mail could reach ${localPart.slice(0, 24)}…: an address's local part (before @) is at most ${LOCAL_PART_MAX_OCTETS} octets, and this one would be ${octets}.`,
  );
}

/**
 * Creates the inbox at the address `request` resolves to, or returns the one already there.
 * Only a creation is audited (`inbox.created`): returning an existing inbox changes nothing.
 */
export async function ensureProjectInbox(
  db: Db,
  project: AuthContext["project"],
  sharedDomain: string,
  request: InboxRequest,
  source: AuditSource,
): Promise<{ inbox: Inbox; created: boolean }> {
  const address = inboxAddress({ projectKey: project.key, tag: request.tag, domain: request.domain?.domain ?? null, sharedDomain });
  if (request.localPartFrom !== undefined) requireDeliverable(address, request.localPartFrom);
  const definition = {
    projectId: project.id,
    domainId: request.domain?.id ?? null,
    tag: request.tag,
    address,
    labels: request.labels,
    retentionSeconds: request.retentionSeconds ?? RETENTION_SECONDS.default,
  };
  return audited(
    db,
    (trx) => ensureInbox(trx, newId("inbox"), definition),
    ({ inbox, created }) =>
      created ? { projectId: project.id, source, action: "inbox.created", target: { type: "inbox", id: inbox.id }, details: { address: inbox.address, tag: inbox.tag } } : null,
  );
}

/** What lets a missing inbox's error point to a capture inbox: the project's key and the shared domain. */
export interface CaptureHint {
  projectKey: string;
  sharedDomain: string;
}

/**
 * The project's inbox named by an id or an address, or `inbox_not_found`. With `capture`, the
 * error for an address outside the shared domain (a recipient the application mailed, say)
 * names the capture inbox the relay files that recipient's mail in, in its reason and as
 * `details.capture_inbox`: waiting on the recipient itself is the usual first mistake.
 */
export async function requireInbox(db: Db, projectId: string, reference: string, capture?: CaptureHint): Promise<Inbox> {
  let inbox: Inbox | null = null;
  if (looksLikeAddress(reference)) inbox = await findInboxByAddress(db, projectId, reference);
  else if (isId("inbox", reference)) inbox = await findInboxById(db, projectId, reference);
  if (inbox === null) throw inboxNotFound(reference, capture);
  return inbox;
}

function inboxNotFound(reference: string, capture: CaptureHint | undefined): MailstopError {
  const outside = capture !== undefined && looksLikeAddress(reference) && !reference.toLowerCase().endsWith(`@${capture.sharedDomain}`);
  const tag = outside ? captureTag(reference) : null;
  if (tag === null) return new MailstopError("inbox_not_found", `No inbox ${reference} in this project.`);
  const address = inboxAddress({ projectKey: capture!.projectKey, tag, domain: null, sharedDomain: capture!.sharedDomain });
  return new MailstopError("inbox_not_found", `No inbox ${reference} in this project. Mail the capture relay takes for ${reference} is filed in the capture inbox ${address}: use that address.`, {
    details: { capture_inbox: address },
  });
}
