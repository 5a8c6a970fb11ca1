/**
 * A fresh recipient for mail the application sends through the capture relay, and the tag the
 * relay files it under (docs/inboxes-and-addresses.md "Capture tags"). The local part is `pw-` and hex and
 * the domain plain ASCII, so the tag is the domain's labels and the local part, lower-cased,
 * with no byte to escape: creating that inbox first lets a wait begin before the first mail.
 */
export function captureRecipient(domain: string, unique: string): { address: string; tag: string } {
  const normalised = domain.trim().toLowerCase();
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(normalised)) {
    throw new RangeError(`captureDomain must be an ASCII domain name such as "example.test", got "${domain}"`);
  }
  if (!/^[a-f0-9]+$/.test(unique)) throw new RangeError(`unique must be lower-case hex, got "${unique}"`);
  const local = `pw-${unique}`;
  return { address: `${local}@${normalised}`, tag: `capture.${normalised}.${local}` };
}
