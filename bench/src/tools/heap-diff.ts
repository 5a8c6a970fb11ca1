/**
 * What a process holds more in one V8 heap snapshot than in another, by kind of object: the
 * profile behind the held waits' and streams' memory (docs/performance.md). `pnpm bench
 * --profile --only=held-waits` writes one snapshot before the waits and one while they are
 * held (bench/results/profiles/held-waits-idle.all.heapsnapshot, …-held.…); `count` divides the
 * growth into a cost per wait.
 * Usage: node --max-old-space-size=8192 --import tsx bench/src/tools/heap-diff.ts BEFORE AFTER [count] [rows]
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Node types whose names are their contents or code, not a kind: counted under the type alone. */
const NAMELESS = new Set(["string", "concatenated string", "sliced string", "number", "code", "regexp", "bigint"]);

/** Bytes and count by kind (`type name`, e.g. `object ServerResponse`, `closure next`). */
function kinds(file: string): Map<string, { bytes: number; count: number }> {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const fields = snapshot.meta.node_fields;
  const stride = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf("type"), fields.indexOf("name"), fields.indexOf("self_size")];
  const types = snapshot.meta.node_types[0];
  const byKind = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < nodes.length; i += stride) {
    const type = types[nodes[i + typeAt]!]!;
    const kind = NAMELESS.has(type) ? type : `${type} ${strings[nodes[i + nameAt]!]!.slice(0, 60)}`;
    const entry = byKind.get(kind) ?? { bytes: 0, count: 0 };
    entry.bytes += nodes[i + sizeAt]!;
    entry.count += 1;
    byKind.set(kind, entry);
  }
  return byKind;
}

const [before, after, countText = "1", rowsText = "40"] = process.argv.slice(2);
if (before === undefined || after === undefined) {
  console.error("usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [count] [rows]");
  process.exit(2);
}
const count = Number(countText);
const [was, is] = [kinds(before), kinds(after)];
const growth = [...is].map(([kind, now]) => {
  const then = was.get(kind) ?? { bytes: 0, count: 0 };
  return { kind, bytes: now.bytes - then.bytes, count: now.count - then.count };
});
growth.sort((a, b) => b.bytes - a.bytes);
const total = growth.reduce((sum, row) => sum + row.bytes, 0);
console.log(`heap growth ${(total / 1e6).toFixed(1)} MB, ${(total / count).toFixed(0)} B per each of ${count}`);
console.log("bytes/each  objects/each  kind");
for (const row of growth.slice(0, Number(rowsText))) {
  console.log(`${(row.bytes / count).toFixed(0).padStart(10)}  ${(row.count / count).toFixed(2).padStart(12)}  ${row.kind}`);
}
