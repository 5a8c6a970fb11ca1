// Links: the http(s) URLs of a message, each with a kind. Pure functions over strings; the HTML
// anchors come from html-text.ts. Rules and judgement calls: README.md ("Decisions").
import type { Anchor, ExtractedLink, LinkKind } from "./types";

/** URL characters of RFC 3986 (ASCII only: a URL in running text ends at the first other character). */
const TEXT_URL = /\bhttps?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]+/gi;
const HTTP_URL = /^https?:\/\/[A-Za-z0-9[]/i;
const HREF_NOISE = /[\t\n\r]/g;
const TRAILING = ".,;:!?*";

/** Kind words, tried in precedence order: unsubscribe > reset_password > magic link (sign_in) > verify > sign_in. */
const KIND_PATTERNS: ReadonlyArray<readonly [Exclude<LinkKind, "other">, RegExp]> = [
  [
    "unsubscribe",
    /unsub|opt[-_ ]?out|d[ée]sabonn|d[ée]sinscri|abbestell|abmeld|austragen|dar(?:se)? de baja|cancelar (?:la |a )?(?:suscripci|subscri|inscri)|descadastr|отпис|配信停止|配信解除|購読解除|購読を解除/iu,
  ],
  [
    "reset_password",
    /(?<![a-z])reset|forgot|passwor[dt](?!less)|passwd|recover|kennwort|mot de passe|r[ée]initialis|contrase[ñn]a|restablec|senha|redefin|пароль|сброс|パスワード|再設定/iu,
  ],
  // A magic link signs in even when its URL ends in a "verify" step (`/magic-link/verify?token=…`).
  ["sign_in", /magic[-_ ]?link/i],
  [
    "verify",
    /verif|v[ée]rifi|(?<!(?:order|booking|reservation)[-_ ]?)confirm|activat|activer|activar|ativar|aktivier|bestätig|validat|valider|подтверд|активир|認証|(?<!(?:注文|予約|履歴|内容|詳細)[をの]?)確認/iu,
  ],
  [
    "sign_in",
    /sign[-_ ]?in(?![a-z])|log[-_ ]?in(?![a-z])|log[-_ ]?on(?![a-z])|magic[-_ ]?link|se connecter|connexion|(?<![a-z])anmeld(?:en|ung)|einloggen|iniciar sesi|(?<![a-z])entrar(?![a-z])|(?<![a-z])acceder(?![a-z])|войти|вход(?![а-яё])|ログイン|サインイン/iu,
  ],
];
const TRACKING_PARAM = /^utm_/i;
/** Help, documentation and blog pages: their URLs name a topic ("/help/login"), not an action. */
const TOPIC_URL =
  /^(?:[^/?#]*\.)?(?:help|support|docs?|kb|faq|blog|community|aide|ayuda|ajuda|hilfe)\.|\/(?:help|hc|support|docs?|documentation|kb|faqs?|articles?|blog|guides?|learn|community|aide|ayuda|ajuda|hilfe)(?:[/?#]|$)/i;

/** The kind named by one piece of text, by precedence; null when none applies. */
export function kindOf(text: string): LinkKind | null {
  for (const [kind, pattern] of KIND_PATTERNS) if (pattern.test(text)) return kind;
  return null;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The kind of one link: the anchor text decides first; then the URL's host, path and fragment;
 * then its query string (without utm_* parameters); else `other`. The URL of a help, docs or
 * blog page is not read at all.
 */
export function linkKind(url: string, text: string | null): LinkKind {
  if (text !== null) {
    const fromText = kindOf(text);
    if (fromText !== null) return fromText;
  }
  const rest = url.slice(url.indexOf("//") + 2);
  if (TOPIC_URL.test(rest)) return "other";
  const q = rest.indexOf("?");
  const h = rest.indexOf("#");
  let location = rest;
  let query = "";
  if (q !== -1 && (h === -1 || q < h)) {
    location = rest.slice(0, q) + (h === -1 ? "" : rest.slice(h));
    query = rest.slice(q + 1, h === -1 ? undefined : h);
  }
  const fromLocation = kindOf(decode(location));
  if (fromLocation !== null) return fromLocation;
  if (query !== "") {
    const kept = query
      .split("&")
      .filter((p) => !TRACKING_PARAM.test(p))
      .join("&");
    const fromQuery = kindOf(decode(kept));
    if (fromQuery !== null) return fromQuery;
  }
  return "other";
}

/** An href or header URL without surrounding whitespace and without tabs or line breaks; null unless http(s). */
export function cleanUrl(raw: string): string | null {
  const url = raw.trim().replace(HREF_NOISE, "");
  return HTTP_URL.test(url) ? url : null;
}

/** Drops sentence punctuation after a URL, and a closing bracket that the URL did not open. */
function trimTrailing(url: string): string {
  let end = url.length;
  let open = 0;
  let close = 0;
  let openSquare = 0;
  let closeSquare = 0;
  for (const ch of url) {
    if (ch === "(") open++;
    else if (ch === ")") close++;
    else if (ch === "[") openSquare++;
    else if (ch === "]") closeSquare++;
  }
  while (end > 0) {
    const ch = url[end - 1]!;
    if (TRAILING.includes(ch)) end--;
    else if (ch === ")" && close > open) {
      close--;
      end--;
    } else if (ch === "]" && closeSquare > openSquare) {
      closeSquare--;
      end--;
    } else break;
  }
  return url.slice(0, end);
}

/** The http(s) URLs written in plain text, in order, with trailing punctuation removed. */
export function findTextUrls(text: string): string[] {
  const urls: string[] = [];
  for (const m of text.matchAll(TEXT_URL)) {
    const url = trimTrailing(m[0]);
    if (HTTP_URL.test(url)) urls.push(url);
  }
  return urls;
}

/**
 * HTML anchors in document order, then URLs of the text not already seen, then List-Unsubscribe
 * URLs not already seen. A URL seen more than once keeps its first position, the first non-null
 * text and the first kind that is not `other`; a List-Unsubscribe URL is always `unsubscribe`.
 */
export function collectLinks(anchors: readonly Anchor[], text: string | null, listUnsubscribe: readonly string[]): ExtractedLink[] {
  const links: ExtractedLink[] = [];
  const byUrl = new Map<string, ExtractedLink>();
  const add = (url: string, anchorText: string | null): void => {
    const seen = byUrl.get(url);
    if (seen === undefined) {
      const link: ExtractedLink = { url, kind: linkKind(url, anchorText), text: anchorText };
      byUrl.set(url, link);
      links.push(link);
      return;
    }
    if (seen.text === null && anchorText !== null) seen.text = anchorText;
    if (seen.kind === "other" && anchorText !== null) seen.kind = linkKind(url, anchorText);
  };

  for (const anchor of anchors) {
    const url = cleanUrl(anchor.href);
    if (url !== null) add(url, anchor.text);
  }
  if (text !== null) for (const url of findTextUrls(text)) add(url, null);
  const unsubscribe = new Set<string>();
  for (const raw of listUnsubscribe) {
    const url = cleanUrl(raw);
    if (url === null) continue;
    unsubscribe.add(url);
    add(url, null);
  }
  for (const link of links) if (unsubscribe.has(link.url)) link.kind = "unsubscribe";
  return links;
}
