import { InvalidArgumentError } from "commander";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/**
 * A duration such as `60s`, `500ms`, `2m`, `1d` (a bare number is seconds) in milliseconds,
 * accepting only `units`; the error names `flag` and `examples`. Bounds are the server's to
 * enforce (a 400 naming the field), so none are checked here beyond "positive".
 */
export function parseDuration(value: string, flag: string, units: readonly Unit[], examples: string): number {
  const match = /^(\d+(?:\.\d+)?)([a-z]+)?$/.exec(value.trim());
  const unit = (match?.[2] ?? "s") as Unit;
  if (match === null || !units.includes(unit)) throw new Error(`${flag} takes a duration such as ${examples}, not "${value}"`);
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  if (ms < 1) throw new Error(`${flag} must be at least 1ms, not "${value}"`);
  return ms;
}

/** `--retention 1d` (s, m, h, d; bare seconds) as whole seconds, the API's `retention_seconds`. */
export function parseRetention(value: string): number {
  return Math.round(parseDuration(value, "--retention", ["s", "m", "h", "d"], "1d, 12h or 3600") / 1000);
}

/** commander argument parser for a positive whole number (`--limit`; the server bounds it). */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError("a whole number of at least 1 is expected.");
  return Number(value);
}

/** commander argument parser for `true` or `false`. */
export function booleanWord(value: string): boolean {
  if (value === "true" || value === "false") return value === "true";
  throw new InvalidArgumentError("true or false is expected.");
}

/** commander argument parser for a comma-separated list (`--events a,b`). */
export function commaList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
