import { Writable } from "node:stream";
import { createLogger, resolveLogFormat } from "./logger";

/** A destination that keeps what is written, and resolves `written` with the first line. */
function collector() {
  const chunks: string[] = [];
  let resolveFirst: (text: string) => void = () => undefined;
  const written = new Promise<string>((resolve) => (resolveFirst = resolve));
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      resolveFirst(chunks.join(""));
      done();
    },
  });
  return { stream, written };
}

describe("the log format", () => {
  it("is pretty on a terminal and JSON elsewhere unless MAILSTOP_LOG_FORMAT forces one", () => {
    expect(resolveLogFormat("auto", true)).toBe("pretty");
    expect(resolveLogFormat("auto", false)).toBe("json");
    expect(resolveLogFormat("json", true)).toBe("json");
    expect(resolveLogFormat("pretty", false)).toBe("pretty");
  });

  it("writes one JSON object a line to a given destination by default", async () => {
    const { stream, written } = collector();
    createLogger({ level: "info", name: "mailstop", destination: stream }).info({ inbox_id: "ibx_1" }, "inbox created");
    const line = JSON.parse(await written);
    expect(line).toMatchObject({ level: 30, name: "mailstop", msg: "inbox created", inbox_id: "ibx_1" });
  });

  it("writes a line for a person when pretty is forced, without colour off a terminal, still redacting secrets", async () => {
    const { stream, written } = collector();
    createLogger({ level: "info", name: "mailstop", destination: stream, format: "pretty" }).info({ inbox_id: "ibx_1", password: "hunter2" }, "inbox created");
    const text = await written;
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(mailstop\): inbox created \{.*\}\n$/);
    expect(text).toContain('"inbox_id":"ibx_1"');
    expect(text).toContain('"password":"[redacted]"');
    expect(text).not.toContain("hunter2");
    // No escape codes: colour is for terminals.
    expect(text).not.toContain("\u001b[");
  });
});
