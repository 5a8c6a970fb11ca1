import { type ChildProcessWithoutNullStreams, type SpawnOptions, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A program a test drives that prints one JSON value a line (a consumer of a built package). */
export interface JsonLineChild {
  process: ChildProcessWithoutNullStreams;
  /** The next line, parsed; throws with what it wrote on stderr when it ended first. */
  next<T = Record<string, unknown>>(): Promise<T>;
  /** Its exit code. */
  exited: Promise<number | null>;
}

/** Starts `node <args>` with its three streams piped; `what` names it in an error. */
export function startJsonLineChild(what: string, args: string[], options: Pick<SpawnOptions, "cwd" | "env">): JsonLineChild {
  const child = spawn(process.execPath, args, { ...options, stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    process: child,
    exited,
    async next<T>() {
      const { value, done } = await lines.next();
      if (done) throw new Error(`${what} ended early: ${stderr}`);
      return JSON.parse(value as string) as T;
    },
  };
}
