// The capture relay's rule (docs/inboxes-and-addresses.md "Capture tags") is @mailstop/core's
// own captureTag: the SDK's build compiles that module into dist/ (bin/inline-core.mjs), so the
// package still depends on no server code once built.
import { captureTag } from "@mailstop/core/capture";

/**
 * The tag the capture relay files mail for `recipient` under: `capture.<domain>.<local>`
 * (`John.Doe+x@Example.com` → `capture.example.com.john.doe_2bx`); null when the address cannot
 * make one.
 */
export function captureTagOf(recipient: string): string | null {
  return captureTag(recipient);
}
