// One-time codes in a subject and a body. Every regular expression is compiled once, here, and
// each text is read in a fixed number of linear passes: normalise, mask links, find keywords,
// mask what is never a code, then one lexer pass whose units are resolved against the keywords
// with two pointers. The rules and the judgement calls are listed in README.md ("Decisions").

/** A keyword may end at most this many characters before a code that it introduces. */
const BEFORE_WINDOW = 40;
/** A keyword may start at most this many characters after a code that it follows ("482913 is your code"), in the same sentence. */
const AFTER_WINDOW = 30;
const SENTENCE_END = /[.!?。\n]/;
/** A year, or a spaced or hyphenated code, counts only when a keyword introduces it this closely. */
const LIFT_WINDOW = 24;
/** Spaces, tabs and markdown emphasis: what may stand beside a hyphen-split code alone on its line. */
const LINE_PAD = new Set([" ", "\t", "*"]);
const HYPHENS = /-/g;

const INVISIBLE = /[\u00ad\u034f\u200b-\u200f\u2060\ufeff]/g;
const NEWLINES = /\r\n?/g;
const LINE_BREAK = /(?<![ \t\f\v])[ \t\f\v]*\n\s*/g;
const TAB_RUN = /(?<![ \f\v])[ \f\v]*\t[ \t\f\v]*/g;
const SPACE_RUN = /[ \f\v]{2,}/g;

/**
 * NFKC (full-width digits and letters become ASCII, no-break and ideographic spaces become
 * spaces), no invisible characters, `\n` line ends, no blank lines, single spaces; tabs (table
 * cells in text made from HTML) stay distinct from spaces.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .replace(NEWLINES, "\n")
    .replace(LINE_BREAK, "\n")
    .replace(TAB_RUN, "\t")
    .replace(SPACE_RUN, " ");
}

/** URLs, e-mail addresses and bare host/path strings: nothing inside them is a code or a keyword. */
const LINKS = new RegExp(
  [
    String.raw`\b(?:https?|ftp|tel|sms|mailto):[^\s<>"]+`,
    String.raw`\bwww\.[^\s<>"]+`,
    String.raw`(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`,
    String.raw`(?<![\w.-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\/[^\s<>"]*`,
  ].join("|"),
  "gi",
);

/** Words that say "the number next to me is a code", in the languages mailstop sees most. */
const KEYWORDS = new RegExp(
  String.raw`(?:code|c[oó]dig|codice|passcode|one[- ]?time|verif|vérif|bestätig|two[- ]factor|2[- ]step|authenti|autentica|einmal|password|passwort|kennwort|contrase[ñn]a|senha|mot de passe|код|подтвержд|проверочн|одноразов|пароль)[a-zà-öø-ÿа-яё]*` +
    String.raw`|(?<![\p{L}\p{N}])(?:otp|pin|2fa|mfa)(?![\p{L}\p{N}])` +
    "|コード|認証|ワンタイム|パスワード|暗証",
  "giu",
);

/** Labels whose value is a reference, a phone number or part of an address, never a code. */
const LABELS = [
  "order", "invoice", "receipt", "transaction", "txn", "ticket", "case", "reference", "ref",
  "tracking", "shipment", "account", "acct", "customer", "member", "membership", "booking",
  "reservation", "confirmation", "policy", "serial", "sku", "phone", "tel", "telephone", "fax",
  "mobile", "cell", "call", "hotline", "suite", "ste", "floor", "apt", "room", "p\\.? ?o\\.? box", "box",
  "zip ?code", "zip", "postal ?code", "postcode", "plz", "cep",
  "commande", "facture", "réservation", "client", "téléphone", "tél",
  "pedido", "factura", "fatura", "encomenda", "reserva", "cliente", "teléfono", "telefone",
  "bestellung", "bestell", "rechnungs", "rechnung", "kunden", "auftrags", "auftrag", "buchungs",
  "buchung", "sendungs", "telefon",
  // company registers and tax ids in legal footers
  "vat(?: ?(?:id|reg(?:istration)?))?", "ust-?id(?:nr)?\\.?", "tva(?: intracommunautaire)?", "hrb", "hra", "siren", "siret", "rcs(?: [a-z]+)?",
  "cif", "nif", "cnpj", "cpf", "abn", "tax ?id",
  "nmls", "licen[cs]e", "registration",
  // identifiers of a request rather than of a person
  "request ?id", "session ?id", "trace ?id", "incident", "event ?id",
].join("|");
const LABEL_FILLERS = String.raw`(?:[ \t]*(?:numbers?|nos?\.?|nr\.?|num\.?|nummer|numéro|numero|número|n\.?[oº°]\.?|id|ref\.?|is|was|lautet|ist|est|es|é|de|do|da|du|:|#|№|-|номер))*`;
const LABEL_VALUE = String.raw`[ \t]*[#№]?[A-Za-z0-9-]{0,24}\d[A-Za-z0-9-]{0,24}(?:[ ./-]\d+)*`;

const NOT_CODES = new RegExp(
  [
    // labelled references, phone numbers and address parts
    String.raw`(?<![\p{L}\p{N}])(?:${LABELS})${LABEL_FILLERS}${LABEL_VALUE}`,
    String.raw`(?<![\p{L}\p{N}])(?:заказ|сч[её]т|тел|телефон|трек)[а-яё]*\.?${LABEL_FILLERS}${LABEL_VALUE}`,
    String.raw`(?:注文|請求|予約|会員|お問い合わせ|電話|伝票)(?:番号)?${LABEL_FILLERS}${LABEL_VALUE}`,
    String.raw`(?<![\p{L}\p{N}])(?:инн|кпп|огрн)${LABEL_FILLERS}${LABEL_VALUE}`,
    // house numbers written after the street: "Av. Paulista, 1000", "Friedrichstraße 68", "Rua Augusta 2690"
    String.raw`(?<![\p{L}\p{N}])(?:av\.|avenida|rua|calle|carrera|rue|viale|piazza|paseo|travessa|alameda)(?: [\p{L}'.-]+){1,4},? \d{1,5}(?![\d.,:/-])`,
    String.raw`(?<!\p{L})\p{L}+(?:straße|strasse|str\.|weg|allee|platz|gasse|damm|ufer|chaussee) \d{1,4}(?![\d.,:/-])`,
    // phone numbers written with a country code or an area code in parentheses
    String.raw`\+\d[\d \-.()/]{5,}\d`,
    String.raw`\(\d{2,5}\) ?\d[\d \-.]{2,}\d`,
    // prices, currency before or after
    String.raw`(?:[$€£¥₹₽₩]|(?<!\p{L})(?:USD|EUR|GBP|JPY|RUB|BRL|CHF|CAD|AUD|INR)(?!\p{L})) ?\d+(?:[.,]\d+|(?: \d{3})(?!\d))*`,
    String.raw`(?<![\d.,]|\d )\d+(?:[.,]\d+|(?: \d{3})(?!\d))* ?(?:[$€£¥₹₽₩円元]|(?:USD|EUR|GBP|JPY|RUB|BRL|CHF|CAD|AUD|INR|руб|р|euros?|dollars?|yen|reais)(?!\p{L}))`,
    // percentages and quantities with a unit
    String.raw`(?<![\d.,])\d+(?:[.,]\d+)? ?(?:%|(?:px|pt|em|kb|mb|gb|tb|kib|mib|gib|ms|km|kg|mm|cm|dpi|kbps|mbps|gbps|mhz|ghz|mah|points?|pts|miles?|mph)(?![\p{L}\p{N}]))`,
    // "Gecko/20100101", "AppleWebKit/605.1.15": the version of a product token (user agents in security notices)
    String.raw`(?<=\p{L}\/)\d+(?:\.\d+)*`,
    // "#12345", "№ 12345", "#FF0000": references and colours
    String.raw`[#№] ?[\p{L}\p{N}][\p{L}\p{N}_-]*`,
    // card numbers shown by their last digits
    String.raw`(?<![*•·∙●][ -]?)[*•·∙●]{3,}(?:[ -][*•·∙●]+)*[ -]?\d{4}(?!\d)`,
    String.raw`(?<![\p{L}\p{N}])[xX]{4}[ -]?\d{4}(?!\d)`,
    String.raw`(?<!\p{L})(?:ending|ends) (?:in|with) \d{2,4}(?!\d)`,
    // "Visa – 4242", "Mastercard ending 4444", "AMEX-0005": a card brand before the last four digits (receipts)
    String.raw`(?<![\p{L}\p{N}])(?:visa|mastercard|master card|amex|american express|discover|jcb|diners(?: club)?|unionpay|maestro|cartes? bancaires?)(?: card)?(?: ending)?[ \t]?[-–—:·•]?[ \t]?\d{4}(?!\d)`,
  ].join("|"),
  "giu",
);

const US_STATES =
  "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY";
const STREETS =
  "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Parkway|Pkwy|Place|Pl|Court|Ct|Square|Sq|Plaza|Terrace|Highway|Hwy|Circle|Cir|Alley|Row";

/** Case-sensitive lexer over the masked text; the first alternative that matches wins. */
const LEXER = new RegExp(
  [
    // "CA 94105", "NY 10001-1234": a US state and ZIP code
    String.raw`(?<zip>(?<![A-Za-z0-9])(?:${US_STATES}) \d{5}(?:-\d{4})?(?!\d))`,
    // "1600 Amphitheatre Parkway", "1200 NW Couch Street": a house number
    String.raw`(?<street>(?<![A-Za-z0-9])\d{1,5}(?= (?:[A-Z0-9][A-Za-z0-9.'-]* ){0,4}(?:${STREETS})(?![A-Za-z])))`,
    // "10115 Berlin", "75002 Paris", "125009, Москва": a postcode before a place name
    String.raw`(?<postal>(?<=^|[\n\t]|[,·|•] ?)\d{4,6}(?=,? (?:[A-Z]{2} )?\p{Lu}\p{Ll}))`,
    // "123 456", "020 7946 0958": digit groups separated by single spaces
    String.raw`(?<spaced>(?<![A-Za-z0-9])\d{1,4}(?: \d{1,4})+(?![A-Za-z0-9]))`,
    // "2026-11-22", "10:30", "1,234", "192.168.0.1", "555-0132", "123-456"
    String.raw`(?<tight>(?<![A-Za-z0-9])\d+(?:[-./:,×]\d+)+)`,
    // "ORD-2026-1182", "X86_64", "K7Q2-XZ9P": hyphenated identifiers
    String.raw`(?<compound>[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+)`,
    String.raw`(?<word>[A-Za-z0-9]+)`,
  ].join("|"),
  "gu",
);

const DIGITS = /^\d+$/;
const YEAR = /^(?:19|20)\d\d$/;
const ALNUM_CODE = /^(?=[A-Z0-9]{6,12}$)(?=[A-Z]*\d)(?=\d*[A-Z])/;
/** Upper-case groups, each with a letter, joined by single hyphens, 6 to 12 characters without them: `BCDF-GHJK`, `X7K-2PQ-9ZR`. */
const HYPHEN_CODE = /^(?=(?:-?[A-Z0-9]){6,12}$)[0-9]*[A-Z][A-Z0-9]*(?:-[0-9]*[A-Z][A-Z0-9]*)+$/;
/** Names of encodings, algorithms, curves, standards and the like: a known prefix, digits, at most two letters. */
const TECHNICAL =
  /^(?:UTF|UCS|ISO|IEC|SHA|MD|AES|DES|RSA|DSA|ECDSA|ED|HMAC|CRC|CP|WIN|WINDOWS|KOI|BASE|HTTP|HTTPS|HTML|CSS|TLS|SSL|SMTP|IMAP|IPV|RFC|PKCS|ES|ECMA|FY|MPEG|MP|COVID|ARM|IOS|WCAG|PCI|SOC|GDPR|X|CURVE|SECP)\d+[A-Z]{0,2}$/;
/** What may stand between a keyword and the code it introduces for the code to be "introduced". */
const CONNECTOR = /^[\s:=\-–—"'«»“”„(\[*]*(?:(?:is|are|ist|lautet|est|es|é|era|sera|は|が|です)[\s:=\-–—"'«»“”„(\[*]*)?$/iu;

interface Span {
  start: number;
  end: number;
}

interface Candidate extends Span {
  value: string;
  /** A postcode-like number: kept only when a keyword is adjacent. */
  soft: boolean;
}

export interface CodeOccurrence {
  value: string;
  /** A keyword (code, OTP, PIN, verification…) is next to it. */
  adjacent: boolean;
}

function blank(match: string): string {
  return "\u0000".repeat(match.length);
}

/** Whether only spaces, tabs and `*` stand between `start`..`end` and the ends of its line. */
function aloneOnLine(text: string, start: number, end: number): boolean {
  let i = start - 1;
  while (i >= 0 && LINE_PAD.has(text[i]!)) i--;
  if (i >= 0 && text[i] !== "\n") return false;
  let j = end;
  while (j < text.length && LINE_PAD.has(text[j]!)) j++;
  return j === text.length || text[j] === "\n";
}

/** Groups of equal size (between `min` and 4 digits) that add up to 6 to 8 digits. */
function joinable(groups: string[], min: number): boolean {
  const size = groups[0]!.length;
  const total = size * groups.length;
  return size >= min && size <= 4 && total >= 6 && total <= 8 && groups.every((g) => g.length === size);
}

/** Every candidate code in one text, in order of appearance, each marked keyword-adjacent or not. */
export function codeOccurrences(input: string): CodeOccurrence[] {
  let text = normalizeText(input).replace(LINKS, blank);
  const keywords: Span[] = [];
  for (const m of text.matchAll(KEYWORDS)) keywords.push({ start: m.index, end: m.index + m[0].length });
  text = text.replace(NOT_CODES, blank);

  const candidates: Candidate[] = [];
  let kp = 0;
  /** Whether a keyword introduces the unit starting at `start`, with only connectors between them. */
  const introduced = (start: number): boolean => {
    while (kp < keywords.length && keywords[kp]!.end <= start) kp++;
    const keyword = keywords[kp - 1];
    return keyword !== undefined && start - keyword.end <= LIFT_WINDOW && CONNECTOR.test(text.slice(keyword.end, start));
  };
  let fp = 0;
  /**
   * Whether a keyword ends at most BEFORE_WINDOW characters before `start`, in the same sentence,
   * with no other candidate between them ("Enter the following code when prompted: BCDF-GHJK").
   */
  const follows = (start: number): boolean => {
    while (fp < keywords.length && keywords[fp]!.end <= start) fp++;
    const keyword = keywords[fp - 1];
    if (keyword === undefined || start - keyword.end > BEFORE_WINDOW) return false;
    const last = candidates[candidates.length - 1];
    return (last === undefined || last.end <= keyword.start) && !SENTENCE_END.test(text.slice(keyword.end, start));
  };
  const digitRun = (value: string, start: number): void => {
    if (value.length < 4 || value.length > 8) return;
    if (YEAR.test(value) && !introduced(start)) return;
    candidates.push({ value, start, end: start + value.length, soft: false });
  };

  LEXER.lastIndex = 0;
  for (let m = LEXER.exec(text); m !== null; m = LEXER.exec(text)) {
    const groups = m.groups!;
    const start = m.index;
    const end = start + m[0].length;
    if (groups.word !== undefined) {
      const word = groups.word;
      if (DIGITS.test(word)) digitRun(word, start);
      else if (ALNUM_CODE.test(word) && !TECHNICAL.test(word)) candidates.push({ value: word, start, end, soft: false });
    } else if (groups.spaced !== undefined) {
      const parts = groups.spaced.split(" ");
      if (joinable(parts, 1) && introduced(start)) {
        candidates.push({ value: parts.join(""), start, end, soft: false });
      } else if (parts.length === 2) {
        digitRun(parts[0]!, start);
        digitRun(parts[1]!, start + parts[0]!.length + 1);
      }
      // three or more groups that are not a code: a phone or card number
    } else if (groups.tight !== undefined) {
      const parts = groups.tight.split("-");
      if (parts.length > 1 && parts.every((p) => DIGITS.test(p)) && joinable(parts, 2) && introduced(start)) {
        candidates.push({ value: parts.join(""), start, end, soft: false });
      }
    } else if (groups.postal !== undefined) {
      candidates.push({ value: groups.postal, start, end, soft: true });
    } else if (groups.compound !== undefined) {
      // A hyphen-split code, as written, when it stands alone on its line or follows a keyword;
      // any other hyphenated identifier (ORD-2026-1182, TKT-48213, ISO-8859-1, UTF-16LE) is not a code.
      const value = groups.compound;
      if (HYPHEN_CODE.test(value) && !TECHNICAL.test(value.replace(HYPHENS, "")) && (aloneOnLine(text, start, end) || follows(start))) {
        candidates.push({ value, start, end, soft: false });
      }
    }
    // zip, street: never codes
  }

  // Adjacency: the nearest keyword before (not already followed by another candidate), or the
  // nearest keyword after (same sentence, no other candidate in between), within the windows.
  const out: CodeOccurrence[] = [];
  let bp = 0;
  let previousEnd = -1;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    while (bp < keywords.length && keywords[bp]!.end <= c.start) bp++;
    const before = keywords[bp - 1];
    let adjacent = before !== undefined && c.start - before.end <= BEFORE_WINDOW && before.start >= previousEnd;
    if (!adjacent) {
      let ap = bp;
      while (ap < keywords.length && keywords[ap]!.start < c.end) ap++;
      const after = keywords[ap];
      const next = candidates[i + 1];
      adjacent =
        after !== undefined &&
        after.start - c.end <= AFTER_WINDOW &&
        (next === undefined || next.start >= after.start) &&
        !SENTENCE_END.test(text.slice(c.end, after.start));
    }
    previousEnd = c.end;
    if (c.soft && !adjacent) continue;
    out.push({ value: c.value, adjacent });
  }
  return out;
}

/**
 * Codes in the subject and then the body: keyword-adjacent codes first (by first adjacent
 * occurrence), then the others (by first occurrence), without duplicates.
 */
export function findCodes(subject: string, body: string | null): string[] {
  const occurrences = body === null ? codeOccurrences(subject) : codeOccurrences(subject).concat(codeOccurrences(body));
  const near = new Set<string>();
  for (const o of occurrences) if (o.adjacent) near.add(o.value);
  const all = new Set(near);
  for (const o of occurrences) all.add(o.value);
  return [...all];
}
