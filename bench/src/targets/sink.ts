import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startChild, waitForHttp } from "../lib/proc";
import type { Target } from "./target";

const SERVER = join(__dirname, "..", "servers", "sink-server.ts");

/** The ceiling (discard) or the durable floor (file + fsync), as a child process. */
export async function startSink(mode: "ceiling" | "floor", logDir: string): Promise<Target> {
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const directory = mode === "floor" ? await mkdtemp(join(tmpdir(), "mailstop-bench-floor-")) : "";
  const child = startChild(mode, process.execPath, ["--import", "tsx", SERVER, mode, String(smtpPort), String(httpPort), directory], { logDir });
  const countUrl = `http://127.0.0.1:${httpPort}/count`;
  await waitForHttp(child, countUrl);
  const count = async () => ((await (await fetch(countUrl)).json()) as { count: number }).count;
  return {
    name: mode,
    smtpPort,
    pid: child.pid,
    async destination(tag) {
      const base = await count();
      return { address: `${tag}@sink.example`, visible: async () => (await count()) - base };
    },
    async stop() {
      await child.stop();
      if (directory) await rm(directory, { recursive: true, force: true });
    },
  };
}
