export type LinkKind = "verify" | "sign_in" | "unsubscribe" | "reset_password" | "other";

export interface ExtractedLink {
  url: string;
  kind: LinkKind;
  /** Anchor text, whitespace collapsed; null for URLs found in plain text or the List-Unsubscribe header. */
  text: string | null;
}

export interface ExtractionInput {
  subject: string;
  /** The text/plain part, decoded; null when the message has none. */
  text: string | null;
  /** The text/html part, decoded; null when the message has none. */
  html: string | null;
  /** URLs from the List-Unsubscribe header (already split, angle brackets removed). */
  listUnsubscribe: string[];
}

export interface Extraction {
  codes: string[];
  links: ExtractedLink[];
}

/** One `<a href>` (or `<area href>`) of an HTML part, in document order. */
export interface Anchor {
  href: string;
  text: string | null;
}
