// The visible text and the anchors of an HTML part, in one streaming pass of htmlparser2.
import { Parser } from "htmlparser2";
import type { Anchor } from "./types";

/** Elements that start and end a line of visible text. */
const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
  "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
  "h5", "h6", "header", "hr", "html", "legend", "li", "main", "nav", "ol", "option", "p", "pre",
  "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
]);
/** Table cells: separated by a tab, so that a row stays on one line. */
const CELL = new Set(["td", "th"]);
/** Elements whose content is never shown. */
const INVISIBLE_ELEMENTS = new Set(["head", "script", "style", "template", "title", "xml"]);

const HTML_SPACE = /[ \t\n\r\f]+/g;
const INVISIBLE_CHARS = /[\u00ad\u034f\u200b-\u200f\u2060\ufeff]/g;
const NBSP = /\u00a0/g;
const LINE_BREAK = /(?<![ \t])[ \t]*\n[ \t\n]*/g;
const TAB_RUN = /(?<! ) *\t[ \t]*/g;
const SPACE_RUN = / {2,}/g;
const DISPLAY_NONE = /display\s*:\s*none/i;

export interface HtmlScan {
  /** Visible text: see htmlToText. */
  text: string;
  /** `<a href>` and `<area href>` elements in document order (any href; callers keep http(s)). */
  anchors: Anchor[];
}

function collapse(text: string): string | null {
  const collapsed = text.replace(INVISIBLE_CHARS, "").replace(NBSP, " ").replace(HTML_SPACE, " ").trim();
  return collapsed === "" ? null : collapsed;
}

function hidden(attribs: Record<string, string>): boolean {
  return attribs.hidden !== undefined || (attribs.style !== undefined && DISPLAY_NONE.test(attribs.style));
}

/** Visible text and anchors of an HTML document in one pass. */
export function scanHtml(html: string): HtmlScan {
  const chunks: string[] = [];
  const anchors: Anchor[] = [];
  let skipDepth = 0;
  let preDepth = 0;
  let anchor: { href: string; parts: string[]; alts: string[] } | null = null;

  const finishAnchor = (): void => {
    if (anchor === null) return;
    const text = collapse(anchor.parts.join("")) ?? collapse(anchor.alts.join(" "));
    anchors.push({ href: anchor.href, text });
    anchor = null;
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "a" || name === "area") {
          finishAnchor();
          if (attribs.href !== undefined) anchor = { href: attribs.href, parts: [], alts: name === "area" && attribs.alt ? [attribs.alt] : [] };
        } else if (anchor !== null) {
          if (name === "img" && attribs.alt) anchor.alts.push(attribs.alt);
          if (name === "br" || BLOCK.has(name) || CELL.has(name)) anchor.parts.push(" ");
        }
        if (skipDepth > 0) {
          skipDepth++;
          return;
        }
        if (INVISIBLE_ELEMENTS.has(name) || hidden(attribs)) {
          skipDepth = 1;
          return;
        }
        if (name === "br" || BLOCK.has(name)) chunks.push("\n");
        else if (CELL.has(name)) chunks.push("\t");
        if (name === "pre") preDepth++;
      },
      ontext(data) {
        if (anchor !== null) anchor.parts.push(data);
        if (skipDepth > 0) return;
        chunks.push(preDepth > 0 ? data : data.replace(HTML_SPACE, " "));
      },
      onclosetag(name) {
        if (name === "a" || name === "area") finishAnchor();
        if (skipDepth > 0) {
          skipDepth--;
          return;
        }
        if (CELL.has(name)) chunks.push("\t");
        else if (BLOCK.has(name)) chunks.push("\n");
        if (name === "pre") preDepth--;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  finishAnchor();

  const text = chunks
    .join("")
    .replace(INVISIBLE_CHARS, "")
    .replace(NBSP, " ")
    .replace(LINE_BREAK, "\n")
    .replace(TAB_RUN, "\t")
    .replace(SPACE_RUN, " ")
    .trim();
  return { text, anchors };
}

/** Visible text of an HTML document: no script/style/head content, block elements separated by newlines. */
export function htmlToText(html: string): string {
  return scanHtml(html).text;
}
