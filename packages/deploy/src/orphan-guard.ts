import { type ChildProcess, spawn } from "node:child_process";

/**
 * The guard's program (plain node, no TypeScript). It learns the fleet's pids and directory
 * from its stdin. Its stdin ends when the fleet's parent process ends, however it ends (even
 * SIGKILL, when no handler of the parent runs): unless released first, it then stops the
 * children (SIGTERM, which lets nginx stop its workers; SIGKILL after 5 s) and removes the
 * directory.
 */
const PROGRAM = `
const { rmSync } = require("node:fs");
const pids = new Set();
let directory = null;
let released = false;
let buffer = "";
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const signal = (pid, name) => { try { process.kill(pid, name); } catch {} };
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf("\\n"); i >= 0; i = buffer.indexOf("\\n")) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line === "release") released = true;
    else if (line.startsWith("pid ")) pids.add(Number(line.slice(4)));
    else if (line.startsWith("dir ")) directory = line.slice(4);
  }
});
process.stdin.on("end", () => {
  if (released) return;
  for (const pid of pids) signal(pid, "SIGTERM");
  const deadline = Date.now() + 5000;
  const check = setInterval(() => {
    const left = [...pids].filter(alive);
    if (left.length > 0 && Date.now() < deadline) return;
    for (const pid of left) signal(pid, "SIGKILL");
    clearInterval(check);
    if (directory !== null) rmSync(directory, { recursive: true, force: true });
  }, 100);
});
`;

/** Stops a fleet's children and removes its directory if the process that started them dies first. */
export interface OrphanGuard {
  watch(pid: number | undefined): void;
  /** The fleet stopped on its own: the guard exits without touching anything. */
  release(): void;
}

export function startOrphanGuard(directory: string): OrphanGuard {
  // Its own process group: a Ctrl-C in the terminal must not end the guard with the rest.
  const guard: ChildProcess = spawn(process.execPath, ["-e", PROGRAM], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  guard.unref();
  const input = guard.stdin!;
  // Neither the guard nor the pipe to it keeps this process alive.
  (input as unknown as { unref?: () => void }).unref?.();
  input.on("error", () => undefined);
  input.write(`dir ${directory}\n`);
  return {
    watch: (pid) => {
      if (pid !== undefined) input.write(`pid ${pid}\n`);
    },
    release: () => {
      input.end("release\n");
    },
  };
}
