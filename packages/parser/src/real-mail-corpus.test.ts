// Runs every message of testdata/real (mail written after the default templates of real
// authentication frameworks and services, each noting the source it models) through the
// parser worker's own path and compares with manifest.json: precision and recall for codes and
// for links (the URL found with the right kind), per source and overall, asserted overall at
// MIN_SCORE or more.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { LinkKind } from "@mailstop/extraction";
import { type Extraction, NO_SCORE, type Score, add, compare, expectScoresOfAtLeast, extractAll, linkKey, precision, recall } from "./corpus-scoring.fixture";

const CORPUS = join(__dirname, "../testdata/real");
const MIN_MESSAGES = 60;
const MIN_SOURCES = 10;
const MIN_SCORE = 0.95;

interface Entry {
  /** The framework or service whose default mail the message models. */
  source: string;
  /** Where its template lives (repository and path, or documentation page). */
  models: string;
  note?: string;
  /** A message the binding rules cannot read as a test author would (its miss is counted, not hidden). */
  known_miss?: boolean;
  codes: string[];
  links: { url: string; kind: LinkKind }[];
}

function emlFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return emlFiles(path);
      return name.endsWith(".eml") ? [path] : [];
    })
    .sort();
}

describe("real-mail corpus", () => {
  const manifest = JSON.parse(readFileSync(join(CORPUS, "manifest.json"), "utf8")) as Record<string, Entry>;
  const files = emlFiles(CORPUS).map((path) => relative(CORPUS, path).split("\\").join("/"));
  let results: { file: string; expected: Entry; actual: Extraction }[] = [];

  beforeAll(async () => {
    results = await extractAll(CORPUS, files, manifest, "manifest.json");
  });

  it(`has at least ${MIN_MESSAGES} messages from at least ${MIN_SOURCES} sources, each with its entry and vice versa`, () => {
    expect(files.length).toBeGreaterThanOrEqual(MIN_MESSAGES);
    expect(Object.keys(manifest).sort()).toEqual(files);
    expect(new Set(Object.values(manifest).map((e) => e.source)).size).toBeGreaterThanOrEqual(MIN_SOURCES);
    for (const entry of Object.values(manifest)) expect(entry.models.length).toBeGreaterThan(10);
  });

  it(`reaches precision and recall of at least ${MIN_SCORE} for codes and for links`, () => {
    const zero = NO_SCORE;
    const bySource = new Map<string, { codes: Score; links: Score; messages: number }>();
    let codes = zero;
    let links = zero;
    for (const r of results) {
      const c = compare(r.expected.codes, r.actual.codes);
      const l = compare(r.expected.links.map(linkKey), r.actual.links.map(linkKey));
      const s = bySource.get(r.expected.source) ?? { codes: zero, links: zero, messages: 0 };
      bySource.set(r.expected.source, { codes: add(s.codes, c), links: add(s.links, l), messages: s.messages + 1 });
      codes = add(codes, c);
      links = add(links, l);
    }
    const cell = (s: Score): string => `${precision(s).toFixed(3).padStart(7)}${recall(s).toFixed(3).padStart(7)}${`${s.tp}/${s.fp}/${s.fn}`.padStart(9)}`;
    const row = (name: string, messages: number, c: Score, l: Score): string => `${name.padEnd(20)}${String(messages).padStart(4)}  ${cell(c)}  ${cell(l)}`;
    console.log(
      [
        `Real-mail corpus: ${results.length} messages, ${bySource.size} sources`,
        `${"".padEnd(20)}${"msgs".padStart(4)}  ${"codes P".padStart(7)}${"R".padStart(7)}${"tp/fp/fn".padStart(9)}  ${"links P".padStart(7)}${"R".padStart(7)}${"tp/fp/fn".padStart(9)}`,
        ...[...bySource.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, s]) => row(name, s.messages, s.codes, s.links)),
        row("overall", results.length, codes, links),
      ].join("\n"),
    );
    expectScoresOfAtLeast(MIN_SCORE, { codes, links });
  });

  it("reads every message exactly, in order, apart from the known misses", () => {
    const mismatches = results
      .filter((r) => r.expected.known_miss !== true)
      .filter(
        (r) =>
          JSON.stringify(r.actual.codes) !== JSON.stringify(r.expected.codes) ||
          JSON.stringify(r.actual.links.map(linkKey)) !== JSON.stringify(r.expected.links.map(linkKey)),
      )
      .map(
        (r) =>
          `${r.file}:\n  codes expected ${JSON.stringify(r.expected.codes)}, got ${JSON.stringify(r.actual.codes)}\n` +
          `  links expected ${JSON.stringify(r.expected.links.map(linkKey))}\n        got      ${JSON.stringify(r.actual.links.map(linkKey))}`,
      );
    expect(mismatches).toEqual([]);
  });

  it("still misses each known miss (remove the mark when a rule change fixes one)", () => {
    for (const r of results.filter((x) => x.expected.known_miss === true)) {
      expect({ file: r.file, codes: r.actual.codes, links: r.actual.links.map(linkKey) }).not.toEqual({
        file: r.file,
        codes: r.expected.codes,
        links: r.expected.links.map(linkKey),
      });
    }
  });
});
