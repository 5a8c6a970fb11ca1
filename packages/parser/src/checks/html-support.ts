import type { HtmlCheck } from "@mailstop/db";
import type { CanIEmailOptions } from "caniemail";

/**
 * How much of an HTML part the check reads. caniemail walks the whole DOM and every style rule
 * synchronously, at about 5 to 15 µs a byte (CSS the dearest; docs/decisions.md "Message
 * checks"): the first 32 KiB cost up to about half a second on a hostile part, the whole of a
 * 1.3 MB one six seconds. Real templates put their styles and layout up front.
 */
export const HTML_CHECK_MAX_BYTES = 32_768;

type Issue = HtmlCheck["issues"][number];

/**
 * caniemail and its data, required on the first check, not at start (a process checking no
 * message never needs them; docs/performance.md "What a process loads"). caniemail names a
 * feature by its title; its data's slug is the stable name (css-display-flex).
 */
let loaded: { caniemail: typeof import("caniemail").caniemail; slugs: Map<string, string> } | null = null;
function loadCaniemail(): NonNullable<typeof loaded> {
  if (loaded === null) {
    const { caniemail, rawData } = require("caniemail") as typeof import("caniemail");
    loaded = { caniemail, slugs: new Map(rawData.data.map((feature: { title: string; slug: string }) => [feature.title, feature.slug] as const)) };
  }
  return loaded;
}
const slugOf = (slugs: Map<string, string>, title: string) => slugs.get(title) ?? title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

/** The first `maxBytes` of `html`, cut at a character. */
function head(html: string, maxBytes: number): string {
  if (html.length * 3 <= maxBytes) return html;
  return Buffer.from(html, "utf8").subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "");
}

/**
 * The features of an HTML part (CSS properties and at-rules, elements, attributes) that any of
 * `clients` does not support (`unsupported`) or supports in part (`partial`), from the caniemail
 * data: one issue per feature and level, naming the clients and how often the part uses it.
 * `none` without an HTML part. Reads the first HTML_CHECK_MAX_BYTES only. Null when caniemail
 * fails on the part (the message is stored all the same).
 */
export function checkHtmlSupport(html: string | null, clients: readonly string[], maxBytes = HTML_CHECK_MAX_BYTES): HtmlCheck | null {
  if (html === null || html.trim() === "") return { status: "none", issues: [] };
  const { caniemail, slugs } = loadCaniemail();
  let found: ReturnType<typeof caniemail>;
  try {
    found = caniemail({ clients: clients as CanIEmailOptions["clients"], html: head(html, maxBytes) });
  } catch {
    return null;
  }
  const issues = new Map<string, Issue>();
  const collect = (byClient: Map<string, { title: string }[]>, level: Issue["level"]) => {
    for (const [client, list] of byClient) {
      const counts = new Map<string, number>();
      for (const { title } of list) counts.set(title, (counts.get(title) ?? 0) + 1);
      for (const [title, count] of counts) {
        const key = `${level}\n${title}`;
        const issue = issues.get(key) ?? { feature: slugOf(slugs, title), title, level, clients: [], count: 0 };
        issue.clients.push(client);
        issue.count = Math.max(issue.count, count);
        issues.set(key, issue);
      }
    }
  };
  collect(found.issues.errors as unknown as Map<string, { title: string }[]>, "unsupported");
  collect(found.issues.warnings as unknown as Map<string, { title: string }[]>, "partial");
  const sorted = [...issues.values()]
    .map((issue) => ({ ...issue, clients: issue.clients.sort() }))
    .sort((a, b) => (a.level === b.level ? a.feature.localeCompare(b.feature) : a.level === "unsupported" ? -1 : 1));
  return { status: sorted.length === 0 ? "ok" : "warnings", issues: sorted };
}
