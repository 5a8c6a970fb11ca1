import { defaultTimeoutMs, waitTimeoutMs } from "./timeout-option";

// One name for the wait's timeout across the SDK, the fixture and the CLI (issue 31): the
// fixture option is `timeoutMs`; the older `waitTimeoutMs` still works, warned once.
it("takes timeoutMs, and waitTimeoutMs with a deprecation warning, timeoutMs winning", () => {
  const emitted = jest.spyOn(process, "emitWarning").mockImplementation(() => undefined);
  try {
    expect(defaultTimeoutMs({ timeoutMs: 5000 })).toBe(5000);
    expect(defaultTimeoutMs({})).toBeUndefined();
    expect(emitted).not.toHaveBeenCalled();
    expect(defaultTimeoutMs({ timeoutMs: 5000, waitTimeoutMs: 7000 })).toBe(5000);
    expect(defaultTimeoutMs({ waitTimeoutMs: 7000 })).toBe(7000);
    expect(defaultTimeoutMs({ waitTimeoutMs: 8000 })).toBe(8000);
    expect(emitted.mock.calls).toEqual([[expect.stringContaining('use "timeoutMs"'), expect.objectContaining({ type: "DeprecationWarning" })]]);
  } finally {
    emitted.mockRestore();
  }
});

it("takes a wait's timeoutMs, and timeout_ms with a deprecation warning", () => {
  const emitted = jest.spyOn(process, "emitWarning").mockImplementation(() => undefined);
  try {
    expect(waitTimeoutMs({ timeoutMs: 500 })).toBe(500);
    expect(emitted).not.toHaveBeenCalled();
    expect(waitTimeoutMs({ timeout_ms: 600 })).toBe(600);
    expect(emitted.mock.calls).toEqual([[expect.stringContaining('use "timeoutMs"'), expect.objectContaining({ type: "DeprecationWarning" })]]);
  } finally {
    emitted.mockRestore();
  }
});
