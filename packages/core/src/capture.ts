// The SDK compiles this module into its build (its captureTagOf): it imports nothing but
// grammar.ts and Node's built-ins.
import { domainToASCII } from "node:url";
import { isValidTag } from "./grammar";

/** Bytes a capture tag segment keeps as they are; every other byte becomes `_` and two hex digits. */
const KEPT = /^[a-z0-9-]$/;

function encodeSegment(segment: string): string {
  let out = "";
  for (const byte of Buffer.from(segment, "utf8")) {
    const char = String.fromCharCode(byte);
    out += KEPT.test(char) ? char : `_${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * The capture relay's tag for a recipient (docs/inboxes-and-addresses.md "Capture tags"):
 * `capture.<domain>.<local>`, the domain lower-cased and IDNA-encoded with its dots as
 * segments, the local part lower-cased with its dots kept and every other byte outside
 * [a-z0-9-] written as `_xx`. Null when the address cannot make a tag (no `@`, an empty local
 * part or segment, a domain IDNA refuses).
 *
 * `John.Doe+x@Example.com` → `capture.example.com.john.doe_2bx`
 */
export function captureTag(recipient: string): string | null {
  const at = recipient.lastIndexOf("@");
  if (at <= 0) return null;
  const domain = domainToASCII(recipient.slice(at + 1).toLowerCase());
  if (domain === "") return null;
  const local = recipient.slice(0, at).toLowerCase().split(".").map(encodeSegment).join(".");
  const tag = `capture.${domain}.${local}`;
  return isValidTag(tag) ? tag : null;
}
