import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort, startChild, waitForHttp, waitForPort } from "../lib/proc";
import type { Target } from "./target";

/** MailDev with the origin of its REST API. */
export type MaildevTarget = Target & { webUrl: string };

/**
 * MailDev as shipped (npm maildev 2.2.1): an in-memory catcher with a REST API. It keeps
 * smtp-server's defaults, so its greeting comes after the 100 ms delay and a reverse lookup.
 */
export async function startMaildev(logDir: string): Promise<MaildevTarget> {
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const directory = await mkdtemp(join(tmpdir(), "mailstop-bench-maildev-"));
  const bin = join(dirname(require.resolve("maildev/package.json")), "bin", "maildev");
  const args = [bin, "--smtp", String(smtpPort), "--web", String(webPort), "--ip", "127.0.0.1", "--mail-directory", directory, "--silent"];
  const child = startChild("maildev", process.execPath, args, { logDir });
  const webUrl = `http://127.0.0.1:${webPort}`;
  await waitForHttp(child, `${webUrl}/healthz`);
  await waitForPort(child, smtpPort);
  // The REST list grows in arrival order: asking only for what is past the last count seen
  // keeps each poll small.
  let known = 0;
  const refresh = async () => {
    const after = known;
    const newer = (await (await fetch(`${webUrl}/email?skip=${after}`)).json()) as unknown[];
    known = Math.max(known, after + newer.length);
    return known;
  };
  return {
    name: "maildev",
    smtpPort,
    pid: child.pid,
    webUrl,
    async destination(tag) {
      const base = await refresh();
      return { address: `${tag}@maildev.example`, visible: async () => (await refresh()) - base };
    },
    async stop() {
      await child.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
