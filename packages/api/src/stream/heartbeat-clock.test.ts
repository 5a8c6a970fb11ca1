import { HeartbeatClock } from "./heartbeat-clock";

describe("HeartbeatClock", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("beats every stream on it from one timer, which stops with the last stream", () => {
    const clock = new HeartbeatClock(1000);
    const beats = new Map<string, number>();
    const stream = (name: string) => ({ beat: () => beats.set(name, (beats.get(name) ?? 0) + 1) });
    const [a, b, c] = [stream("a"), stream("b"), stream("c")];
    expect(jest.getTimerCount()).toBe(0);
    clock.add(a);
    clock.add(b);
    jest.advanceTimersByTime(400);
    clock.add(c);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(600);
    // c joined mid-period: its first beat comes with everyone's, within one period.
    expect(Object.fromEntries(beats)).toEqual({ a: 1, b: 1, c: 1 });
    clock.delete(a);
    jest.advanceTimersByTime(1000);
    expect(Object.fromEntries(beats)).toEqual({ a: 1, b: 2, c: 2 });
    clock.delete(b);
    clock.delete(c);
    expect(jest.getTimerCount()).toBe(0);
    clock.add(a);
    expect(jest.getTimerCount()).toBe(1);
    clock.delete(a);
  });

  it("keeps beating the others when a stream throws or leaves the clock on its beat", () => {
    const clock = new HeartbeatClock(1000);
    const beaten: string[] = [];
    const leaving = { beat: () => (beaten.push("leaving"), clock.delete(leaving)) };
    const throwing = {
      beat: () => {
        beaten.push("throwing");
        throw new Error("stream bug");
      },
    };
    clock.add(throwing);
    clock.add(leaving);
    const steady = { beat: () => void beaten.push("steady") };
    clock.add(steady);
    jest.advanceTimersByTime(2000);
    expect(beaten).toEqual(["throwing", "leaving", "steady", "throwing", "steady"]);
  });
});
