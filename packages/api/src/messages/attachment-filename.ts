/** The longest name shown or offered for download, in UTF-8 bytes (most file systems' limit). */
export const FILENAME_MAX_BYTES = 255;

/** The longest tail kept as an extension when a name is cut (`.tar.gz` is two: only `.gz` counts). */
const EXTENSION_MAX_CHARS = 16;

/**
 * What never belongs in a name: C0 and C1 controls and DEL (\p{Cc}, CR, LF and NUL among them),
 * format characters (\p{Cf}: the bidirectional overrides and isolates that make
 * `invoice\u202Efdp.exe` show as `invoiceexe.pdf`, zero-width characters), line and paragraph
 * separators.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Path separators and the characters Windows refuses in a name. */
const UNSAFE = /[/\\<>:"|?*]/g;

/**
 * An attachment's name as the message view shows it and a download offers it. The name in the
 * attachment row stays as the message carried it (after storable); only what leaves the API
 * is made safe: invisible characters removed, separators replaced with `_`, dot runs (`..`)
 * folded and leading dots dropped (no hidden files, no parent segments), whitespace collapsed,
 * at most FILENAME_MAX_BYTES keeping the extension. A name with nothing left is `attachment`.
 */
export function safeFilename(name: string | null): string | null {
  if (name === null) return null;
  const cleaned = name
    .normalize("NFC")
    .replace(INVISIBLE, "")
    .replace(UNSAFE, "_")
    .replace(/\.{2,}/g, ".")
    .replace(/\s+/g, " ")
    .replace(/^[\s.]+|[\s.]+$/g, "");
  return cleaned === "" ? "attachment" : capBytes(cleaned);
}

/** `name` cut to FILENAME_MAX_BYTES of UTF-8 at a code point, its extension kept. */
function capBytes(name: string): string {
  if (Buffer.byteLength(name, "utf8") <= FILENAME_MAX_BYTES) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= EXTENSION_MAX_CHARS ? name.slice(dot) : "";
  let room = FILENAME_MAX_BYTES - Buffer.byteLength(extension, "utf8");
  let stem = "";
  for (const character of name.slice(0, name.length - extension.length)) {
    room -= Buffer.byteLength(character, "utf8");
    if (room < 0) break;
    stem += character;
  }
  return stem.trimEnd() + extension;
}
