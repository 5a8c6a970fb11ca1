// Runs every message of testdata/corpus through the parser worker's own path (one streaming
// read with mailparser, then buildContent, which calls @mailstop/extraction) and compares its
// codes and links with expected.json: precision and recall over all codes and over all
// (url, kind) links, plus the exact per-file order.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { LinkKind } from "@mailstop/extraction";
import { buildContent } from "./content";
import { readMessage } from "./read-message";

type Extraction = { codes: string[]; links: { url: string; kind: LinkKind }[] };

const CORPUS = join(__dirname, "../testdata/corpus");
const MIN_MESSAGES = 30;
const MIN_SCORE = 0.95;

interface Expected {
  codes: string[];
  links: { url: string; kind: LinkKind }[];
}

interface Result {
  file: string;
  expected: Expected;
  actual: Extraction;
}

/** Codes and links exactly as the worker would store them for this source. */
async function parse(file: string): Promise<Extraction> {
  const read = await readMessage(Readable.from([readFileSync(join(CORPUS, file))]), async (_position, content) => {
    let size = 0;
    for await (const chunk of content) size += (chunk as Buffer).length;
    return size;
  });
  const content = buildContent(read, { parts: {}, htmlBody: null, headerBlock: null }, []);
  return { codes: content.codes, links: content.links };
}

/** Matches over multisets: true positives, false positives and false negatives. */
function compare(expected: string[], actual: string[]): { tp: number; fp: number; fn: number } {
  const left = new Map<string, number>();
  for (const e of expected) left.set(e, (left.get(e) ?? 0) + 1);
  let tp = 0;
  let fp = 0;
  for (const a of actual) {
    const n = left.get(a) ?? 0;
    if (n > 0) {
      tp++;
      left.set(a, n - 1);
    } else fp++;
  }
  return { tp, fp, fn: expected.length - tp };
}

function score(pairs: { expected: string[]; actual: string[] }[]): { precision: number; recall: number; tp: number; fp: number; fn: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of pairs) {
    const c = compare(p.expected, p.actual);
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn), tp, fp, fn };
}

const linkKey = (l: { url: string; kind: string }): string => `${l.kind} ${l.url}`;

describe("extraction corpus", () => {
  const expectedByFile = JSON.parse(readFileSync(join(CORPUS, "expected.json"), "utf8")) as Record<string, Expected>;
  const files = readdirSync(CORPUS)
    .filter((f) => f.endsWith(".eml"))
    .sort();
  let results: Result[] = [];

  beforeAll(async () => {
    results = await Promise.all(
      files.map(async (file) => {
        const expected = expectedByFile[file];
        if (expected === undefined) throw new Error(`expected.json has no entry for ${file}`);
        return { file, expected, actual: await parse(file) };
      }),
    );
  });

  it(`has at least ${MIN_MESSAGES} messages, each with an expectation and vice versa`, () => {
    expect(files.length).toBeGreaterThanOrEqual(MIN_MESSAGES);
    expect(Object.keys(expectedByFile).sort()).toEqual(files);
  });

  it(`reaches precision and recall of at least ${MIN_SCORE} on codes and links`, () => {
    const codes = score(results.map((r) => ({ expected: r.expected.codes, actual: r.actual.codes })));
    const links = score(results.map((r) => ({ expected: r.expected.links.map(linkKey), actual: r.actual.links.map(linkKey) })));
    const row = (name: string, s: ReturnType<typeof score>): string =>
      `${name.padEnd(12)}${s.precision.toFixed(3).padStart(10)}${s.recall.toFixed(3).padStart(8)}${String(s.tp).padStart(6)}${String(s.fp).padStart(6)}${String(s.fn).padStart(6)}`;
    console.log(
      [
        `Extraction corpus: ${results.length} messages`,
        `${"".padEnd(12)}${"precision".padStart(10)}${"recall".padStart(8)}${"tp".padStart(6)}${"fp".padStart(6)}${"fn".padStart(6)}`,
        row("codes", codes),
        row("links", links),
      ].join("\n"),
    );
    expect(codes.precision).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(codes.recall).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(links.precision).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(links.recall).toBeGreaterThanOrEqual(MIN_SCORE);
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
