import { onAbort } from "./on-abort";

describe("onAbort", () => {
  it("runs each listener once when the signal aborts, except those forgotten", () => {
    const controller = new AbortController();
    const ran: string[] = [];
    onAbort(controller.signal, () => ran.push("a"));
    const forget = onAbort(controller.signal, () => ran.push("b"));
    onAbort(controller.signal, () => ran.push("c"));
    forget();
    controller.abort();
    controller.abort();
    expect(ran).toEqual(["a", "c"]);
    onAbort(controller.signal, () => ran.push("late"));
    expect(ran).toEqual(["a", "c"]);
  });

  it("adds one listener to the signal however many are registered, and takes 10,000 in linear time", () => {
    const controller = new AbortController();
    const added = jest.spyOn(controller.signal, "addEventListener");
    let count = 0;
    const started = performance.now();
    const forgets = Array.from({ length: 10_000 }, () => onAbort(controller.signal, () => (count += 1)));
    for (const forget of forgets.slice(0, 5000)) forget();
    const elapsed = performance.now() - started;
    controller.abort();
    expect(added).toHaveBeenCalledTimes(1);
    expect(count).toBe(5000);
    // addEventListener per registration took seconds here (quadratic); a Set takes milliseconds.
    expect(elapsed).toBeLessThan(500);
  });
});
