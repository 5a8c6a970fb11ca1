// Runs every message of testdata/corpus through the parser worker's own path (one streaming
// read with mailparser, then buildContent, which calls @mailstop/extraction) and compares its
// codes and links with expected.json: precision and recall over all codes and over all
// (url, kind) links, plus the exact per-file order.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Extraction, expectScoresOfAtLeast, extractAll, linkKey, precision, recall, scoreAll, type Score } from "./corpus-scoring.fixture";

const CORPUS = join(__dirname, "../testdata/corpus");
const MIN_MESSAGES = 30;
const MIN_SCORE = 0.95;

interface Result {
  file: string;
  expected: Extraction;
  actual: Extraction;
}

describe("extraction corpus", () => {
  const expectedByFile = JSON.parse(readFileSync(join(CORPUS, "expected.json"), "utf8")) as Record<string, Extraction>;
  const files = readdirSync(CORPUS)
    .filter((f) => f.endsWith(".eml"))
    .sort();
  let results: Result[] = [];

  beforeAll(async () => {
    results = await extractAll(CORPUS, files, expectedByFile, "expected.json");
  });

  it(`has at least ${MIN_MESSAGES} messages, each with an expectation and vice versa`, () => {
    expect(files.length).toBeGreaterThanOrEqual(MIN_MESSAGES);
    expect(Object.keys(expectedByFile).sort()).toEqual(files);
  });

  it(`reaches precision and recall of at least ${MIN_SCORE} on codes and links`, () => {
    const { codes, links } = scoreAll(results);
    const row = (name: string, s: Score): string =>
      `${name.padEnd(12)}${precision(s).toFixed(3).padStart(10)}${recall(s).toFixed(3).padStart(8)}${String(s.tp).padStart(6)}${String(s.fp).padStart(6)}${String(s.fn).padStart(6)}`;
    console.log(
      [
        `Extraction corpus: ${results.length} messages`,
        `${"".padEnd(12)}${"precision".padStart(10)}${"recall".padStart(8)}${"tp".padStart(6)}${"fp".padStart(6)}${"fn".padStart(6)}`,
        row("codes", codes),
        row("links", links),
      ].join("\n"),
    );
    expectScoresOfAtLeast(MIN_SCORE, { codes, links });
  });

  it("finds the codes of every file in the expected order", () => {
    const mismatches = results
      .filter((r) => JSON.stringify(r.actual.codes) !== JSON.stringify(r.expected.codes))
      .map((r) => `${r.file}: expected ${JSON.stringify(r.expected.codes)}, got ${JSON.stringify(r.actual.codes)}`);
    expect(mismatches).toEqual([]);
  });

  it("finds the links of every file in the expected order with the expected kinds", () => {
    const mismatches = results
      .filter((r) => JSON.stringify(r.actual.links.map(linkKey)) !== JSON.stringify(r.expected.links.map(linkKey)))
      .map((r) => `${r.file}:\n  expected ${JSON.stringify(r.expected.links.map(linkKey))}\n  got      ${JSON.stringify(r.actual.links.map(linkKey))}`);
    expect(mismatches).toEqual([]);
  });
});
