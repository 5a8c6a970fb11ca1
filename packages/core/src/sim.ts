/** The reserved `sim.*` behaviours (docs/inboxes-and-addresses.md, "`sim.*` addresses"). */
export const SIM_BEHAVIOURS = ["hard-bounce", "soft-bounce", "oversize", "greylist", "delay", "complaint"] as const;
export type SimBehaviour = (typeof SIM_BEHAVIOURS)[number];

/**
 * The behaviour a tag triggers: `sim.<behaviour>` itself or any child of it
 * (`sim.greylist.run-42`), so parallel runs can use addresses of their own; null for every
 * other tag.
 */
export function simBehaviourOf(tag: string): SimBehaviour | null {
  if (!tag.startsWith("sim.")) return null;
  const behaviour = tag.slice(4).split(".", 1)[0];
  return (SIM_BEHAVIOURS as readonly string[]).includes(behaviour ?? "") ? (behaviour as SimBehaviour) : null;
}

/** Behaviours that refuse at RCPT and need no inbox. */
export const REFUSING_SIMS: ReadonlySet<SimBehaviour> = new Set(["hard-bounce", "soft-bounce", "oversize"]);
