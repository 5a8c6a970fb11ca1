import { simBehaviourOf } from "./sim";

describe("sim behaviours", () => {
  it.each([
    ["sim.hard-bounce", "hard-bounce"],
    ["sim.soft-bounce.run-1", "soft-bounce"],
    ["sim.oversize", "oversize"],
    ["sim.greylist.run-42", "greylist"],
    ["sim.delay", "delay"],
    ["sim.complaint.a.b", "complaint"],
  ])("%s triggers %s", (tag, behaviour) => expect(simBehaviourOf(tag)).toBe(behaviour));

  it.each(["sim", "sim.unknown", "sim.greylisting", "signup.sim.delay", "simulation.delay"])("%s triggers nothing", (tag) => {
    expect(simBehaviourOf(tag)).toBeNull();
  });
});
