/**
 * Summarises a V8 .cpuprofile (from `pnpm bench --profile`): self time by function and by
 * package, so a miss in the table can be traced to where the server spends its CPU.
 * Usage: tsx bench/src/tools/profile-summary.ts <file.cpuprofile> [top] [--from=<s>] [--to=<s>]
 * --from and --to keep the samples taken that many seconds after the profile began (a
 * process profiled from its start with `node --cpu-prof`: its start-up, or its idle minutes).
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const flags = new Map(process.argv.slice(2).filter((arg) => arg.startsWith("--")).map((arg) => arg.slice(2).split("=") as [string, string]));
const [file, topArg] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
if (!file) {
  console.error("usage: profile-summary.ts <file.cpuprofile> [top] [--from=<s>] [--to=<s>]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const fromUs = Number(flags.get("from") ?? 0) * 1e6;
const toUs = Number(flags.get("to") ?? Number.POSITIVE_INFINITY) * 1e6;
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at >= fromUs && at < toUs) self.set(id, (self.get(id) ?? 0) + delta);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string): string {
  if (!url) return "(native / V8)";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1]!;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const repo = /\/(packages|services|bench)\/([^/]+)\//.exec(url);
  if (repo) return `@mailstop/${repo[2]}`;
  if (url.startsWith("node:")) return "node (core)";
  return url;
}

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, time] of self) {
  const node = byId.get(id)!;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\/\.pnpm\//, "").replace(/^file:\/\/.*\/work\/main\//, "")}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + time);
  const pkg = functionName === "(idle)" || functionName === "(garbage collector)" ? functionName : packageOf(url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
const busy = total - (byPackage.get("(idle)") ?? 0);
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`);
console.log("\nby package (self time):");
for (const [name, time] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(time)}  ${name}`);
console.log("\nby function (self time):");
for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(time)}  ${name}`);
