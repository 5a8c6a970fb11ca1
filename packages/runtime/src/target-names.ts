/**
 * The targets of `mailstop serve --target` and the modules each runs. targets.ts checks every
 * name against its module table and derives the start order from what each module needs;
 * modules that need nothing of each other start in the order listed here. Apart from the
 * modules themselves, so the command line can offer the choices without loading every service.
 */
export const TARGETS = {
  api: ["database", "object-store", "messaging", "secrets", "api", "http-server"],
  waiter: ["database", "object-store", "messaging", "waiter", "http-server"],
  // The operations listener first: it answers /health and /ready (503 "starting") while the
  // engines connect, and, stopped last, /ready 503 "stopping" until the process ends.
  "smtp-edge": ["ops-server", "database", "object-store", "messaging", "smtp-edge"],
  parser: ["ops-server", "database", "object-store", "messaging", "secrets", "parser"],
  all: ["database", "first-start", "object-store", "messaging", "secrets", "parser", "smtp-edge", "waiter", "api", "http-server"],
} as const;

export type Target = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as Target[];

export function isTarget(value: string): value is Target {
  return Object.hasOwn(TARGETS, value);
}
