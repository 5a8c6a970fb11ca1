// @mailstop/extraction: one-time codes and links in a received message. Pure functions, no I/O.
import { findCodes } from "./codes";
import { scanHtml } from "./html-text";
import { collectLinks } from "./links";
import type { Extraction, ExtractedLink, ExtractionInput } from "./types";

export type { Anchor, Extraction, ExtractedLink, ExtractionInput, LinkKind } from "./types";
export { htmlToText } from "./html-text";

const NON_SPACE = /\S/;

/** The text/plain part when it has any content (an empty one counts as absent), else null. */
function textPart(input: ExtractionInput): string | null {
  return input.text !== null && NON_SPACE.test(input.text) ? input.text : null;
}

/** Codes and links of one message, reading its HTML once. */
export function extract(input: ExtractionInput): Extraction {
  const scan = input.html !== null ? scanHtml(input.html) : null;
  const body = textPart(input) ?? scan?.text ?? null;
  return { codes: findCodes(input.subject, body), links: collectLinks(scan?.anchors ?? [], body, input.listUnsubscribe) };
}

/** Codes in the subject and the text part, or the HTML's visible text when there is no text part. */
export function extractCodes(input: ExtractionInput): string[] {
  const text = textPart(input);
  const body = text ?? (input.html !== null ? scanHtml(input.html).text : null);
  return findCodes(input.subject, body);
}

/** Links of the HTML anchors, the text (as for codes) and the List-Unsubscribe header. */
export function extractLinks(input: ExtractionInput): ExtractedLink[] {
  const scan = input.html !== null ? scanHtml(input.html) : null;
  const body = textPart(input) ?? scan?.text ?? null;
  return collectLinks(scan?.anchors ?? [], body, input.listUnsubscribe);
}
