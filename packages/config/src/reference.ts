import { CLIENT_CONFIG } from "./client-config";
import { CONFIG_GROUPS } from "./schema";

interface SpecMeta {
  desc?: string;
  default?: unknown;
  choices?: readonly unknown[];
}

/** docs/configuration.md, rendered from {@link CONFIG_GROUPS} and {@link CLIENT_CONFIG}; never edited by hand. */
export function renderConfigurationReference(): string {
  const lines = [
    "# Configuration",
    "",
    "<!-- Generated from packages/config/src/schema.ts by `pnpm generate`; `pnpm check` fails when it drifts. -->",
    "",
    "mailstop reads only these environment variables. Invalid configuration stops start-up with",
    "one line per offending variable. An empty value counts as unset.",
    "",
  ];
  // The client commands' variables last, under their own heading: a server never reads them.
  for (const [group, specs] of Object.entries({ ...CONFIG_GROUPS, client: CLIENT_CONFIG })) {
    lines.push(`## ${group}`, "", "| variable | default | meaning |", "|---|---|---|");
    for (const [name, spec] of Object.entries(specs as Record<string, SpecMeta>)) {
      const fallback = spec.default === undefined ? "unset" : `\`${String(spec.default)}\``;
      const choices = spec.choices ? ` One of ${spec.choices.map((c) => `\`${String(c)}\``).join(", ")}.` : "";
      lines.push(`| \`${name}\` | ${fallback} | ${spec.desc ?? ""}${choices} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
