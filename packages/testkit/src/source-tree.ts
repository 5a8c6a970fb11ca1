import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The repository's root: two folders above this package's `src`. */
export const REPOSITORY_ROOT = resolve(__dirname, "../../..");

/** The repository's tracked files that the working tree has (a deletion not yet committed is gone), relative to its root. */
export function trackedFiles(root = REPOSITORY_ROOT): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).split("\0");
  return listed.filter((file) => file !== "" && existsSync(join(root, file)));
}

const RELATIVE_IMPORT = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g,
  /\bimport\s*["'](\.{1,2}\/[^"']+)["']/g,
  /\b(?:import|require)\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g,
];
const RESOLVED_EXTENSIONS = ["", ".ts", ".tsx", ".js", ".cjs", ".mjs", "/index.ts", "/index.js"];

/** The files a source imports by relative path (type-only imports included), as paths relative to the root. */
export function relativeImports(file: string, text: string, exists: (path: string) => boolean): string[] {
  const found = new Set<string>();
  for (const pattern of RELATIVE_IMPORT) {
    for (const match of text.matchAll(pattern)) {
      const specifier = join(dirname(file), match[1]!);
      // ESM sources name their TypeScript siblings `./x.js`.
      const bases = specifier.endsWith(".js") ? [specifier.slice(0, -3) + ".ts", specifier] : [specifier];
      const target = bases.flatMap((base) => RESOLVED_EXTENSIONS.map((extension) => base + extension)).find(exists);
      if (target !== undefined) found.add(target);
    }
  }
  return [...found];
}

/**
 * The import cycles of a graph (file → the files it imports): each strongly connected set of
 * two or more files, or one that imports itself, sorted (Tarjan's algorithm).
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(members.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** The relative-import graph of the repository's TypeScript and JavaScript sources. */
export function sourceImportGraph(root = REPOSITORY_ROOT): Map<string, string[]> {
  const sources = trackedFiles(root).filter((file) => /\.(ts|tsx|js|cjs|mjs)$/.test(file) && !file.includes("/generated/") && !file.endsWith(".d.ts"));
  const tracked = new Set(sources);
  const exists = (path: string) => tracked.has(path);
  return new Map(sources.map((file) => [file, relativeImports(file, readFileSync(join(root, file), "utf8"), exists)]));
}
