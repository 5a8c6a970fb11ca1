// The extraction corpora's common part: each message read through the parser worker's own
// path (one streaming read with mailparser, then buildContent, which calls
// @mailstop/extraction), and precision and recall over codes and over (url, kind) links.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { LinkKind } from "@mailstop/extraction";
import { buildContent } from "./content";
import { readMessage } from "./read-message";

export interface Extraction {
  codes: string[];
  links: { url: string; kind: LinkKind }[];
}

/** Codes and links exactly as the worker would store them for the source in `path`. */
export async function extractionOf(path: string): Promise<Extraction> {
  const read = await readMessage(Readable.from([readFileSync(path)]), async (_position, content) => {
    let size = 0;
    for await (const chunk of content) size += (chunk as Buffer).length;
    return size;
  });
  const content = buildContent(read, { parts: {}, htmlBody: null, headerBlock: null }, []);
  return { codes: content.codes, links: content.links };
}

/** Each file of `files` in `dir` read, beside its entry in `expectations` (the file named `listName`, which must have one for each). */
export function extractAll<E>(dir: string, files: readonly string[], expectations: Record<string, E>, listName: string): Promise<{ file: string; expected: E; actual: Extraction }[]> {
  return Promise.all(
    files.map(async (file) => {
      const expected = expectations[file];
      if (expected === undefined) throw new Error(`${listName} has no entry for ${file}`);
      return { file, expected, actual: await extractionOf(join(dir, file)) };
    }),
  );
}

export interface Score {
  tp: number;
  fp: number;
  fn: number;
}

export const NO_SCORE: Score = { tp: 0, fp: 0, fn: 0 };

/** Matches over multisets: true positives, false positives and false negatives. */
export function compare(expected: readonly string[], actual: readonly string[]): Score {
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

export const add = (a: Score, b: Score): Score => ({ tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn });
export const precision = (s: Score): number => (s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp));
export const recall = (s: Score): number => (s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn));
export const linkKey = (l: { url: string; kind: string }): string => `${l.kind} ${l.url}`;

/** Codes and links scored over every message. */
export function scoreAll(results: readonly { expected: Extraction; actual: Extraction }[]): { codes: Score; links: Score } {
  let codes = NO_SCORE;
  let links = NO_SCORE;
  for (const r of results) {
    codes = add(codes, compare(r.expected.codes, r.actual.codes));
    links = add(links, compare(r.expected.links.map(linkKey), r.actual.links.map(linkKey)));
  }
  return { codes, links };
}

/** Precision and recall, of codes and of links, each at least `min`: a failure names those below it. */
export function expectScoresOfAtLeast(min: number, scores: { codes: Score; links: Score }): void {
  const below = Object.entries(scores)
    .flatMap(([name, score]) => [[`${name} precision`, precision(score)] as const, [`${name} recall`, recall(score)] as const])
    .filter(([, value]) => value < min);
  expect(below).toEqual([]);
}
