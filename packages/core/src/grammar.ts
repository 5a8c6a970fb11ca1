/**
 * The address grammar (docs/inboxes-and-addresses.md "Addresses"): tags, run ids, project keys, labels.
 * Pure functions: every surface (HTTP, SMTP, CLI) validates with these and nothing else.
 */

/** Dot-separated segments of `a-z`, `0-9`, `-`, `_`. */
export const TAG_PATTERN = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

/** No dots: the first dot of a shared-domain local part ends the project key. */
export const PROJECT_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{1,39}$/;

export const LABEL_KEY_MAX = 64;
export const LABEL_VALUE_MAX = 256;

export const RETENTION_SECONDS = { min: 60, max: 2_592_000, default: 86_400 } as const;

/** True when `tag` follows the grammar as given (no case folding). */
export function isValidTag(tag: string): boolean {
  return TAG_PATTERN.test(tag);
}

/**
 * The stored form of a requested tag: lower-cased, then checked. Returns null when the
 * lower-cased value still breaks the grammar; such input is refused, never slugified,
 * because two inputs that slugified alike would share an inbox.
 */
export function normaliseTag(requested: string): string | null {
  const tag = requested.toLowerCase();
  return isValidTag(tag) ? tag : null;
}

/** True when `candidate` is `prefix` itself or one of its dot-nested children. */
export function tagHasPrefix(candidate: string, prefix: string): boolean {
  return candidate === prefix || candidate.startsWith(`${prefix}.`);
}

export function isValidProjectKey(key: string): boolean {
  return PROJECT_KEY_PATTERN.test(key);
}

/** The tag of the stable inbox of a run (`POST /v1/inboxes/for-run`). */
export function runTag(runId: string): string {
  return `run.${runId}`;
}

/** The tag of one fixture inbox of a run (`POST /v1/fixtures/ensure`). */
export function fixtureTag(runId: string, fixtureName: string): string {
  return `${runTag(runId)}.${fixtureName}`;
}
