import { domainToASCII } from "node:url";

// The capture relay's rule (docs/inboxes-and-addresses.md "Capture tags"), here because the SDK
// depends on no server code: capture-tag.test.ts holds it to packages/core's captureTag.
const KEPT = /^[a-z0-9-]$/;
const TAG = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

function encodeSegment(segment: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(segment)) {
    const char = String.fromCharCode(byte);
    out += KEPT.test(char) ? char : `_${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * The tag the capture relay files mail for `recipient` under: `capture.<domain>.<local>`
 * (`John.Doe+x@Example.com` → `capture.example.com.john.doe_2bx`); null when the address cannot
 * make one.
 */
export function captureTagOf(recipient: string): string | null {
  const at = recipient.lastIndexOf("@");
  if (at <= 0) return null;
  const domain = domainToASCII(recipient.slice(at + 1).toLowerCase());
  if (domain === "") return null;
  const local = recipient.slice(0, at).toLowerCase().split(".").map(encodeSegment).join(".");
  const tag = `capture.${domain}.${local}`;
  return TAG.test(tag) ? tag : null;
}
