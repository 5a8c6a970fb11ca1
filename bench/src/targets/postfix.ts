import { execFile } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { acceptsConnections, freePort } from "../lib/proc";
import { until } from "../lib/stats";
import type { Target } from "./target";

const run = promisify(execFile);
/** Debian's `nobody`: owns the Maildir the virtual delivery agent writes (Postfix refuses root). */
const MAILDIR_UID = 65534;
const DOMAIN = "postfix.example";

/**
 * Postfix 3.x from Debian, as a real MTA: smtpd writes each message to its queue with fsync
 * before 250, and the virtual delivery agent then writes it to a Maildir, where a message is
 * "visible". A private instance (its own configuration, queue and Maildir under a temporary
 * directory, listening on a loopback port) so nothing of the system's mail setup is touched.
 *
 * Stock settings except what a private instance needs, and two that are not about the work:
 * no reverse lookup of the client (mailstop and the floor do none either) and no per-client
 * connection cap (stock 50, the ingest's own concurrency). Its `in_flow_delay` (smtpd slowing a
 * sender while the queue manager falls behind) stays as shipped: it is how Postfix keeps the
 * mail it has accepted deliverable.
 *
 * Returns the reason instead when Postfix cannot run here: not installed, or not root (its
 * master process starts as root and drops to the `postfix` user).
 */
export async function startPostfix(logDir: string, onCreated: (stop: () => Promise<void>) => void): Promise<Target | { skipped: string }> {
  if (process.getuid?.() !== 0) return { skipped: "Postfix's master must start as root" };
  try {
    await run("postconf", ["-d", "mail_version"]);
  } catch {
    return { skipped: "Postfix is not installed (Debian package postfix)" };
  }
  const smtpPort = await freePort();
  const base = await mkdtemp(join(tmpdir(), "mailstop-bench-postfix-"));
  const [config, queue, data, maildir] = ["etc", "spool", "data", "maildir"].map((name) => join(base, name)) as [string, string, string, string];
  const logFile = join(logDir, "postfix.log");
  const postfix = (command: string) => run("postfix", ["-c", config, command]);
  let stopping: Promise<void> | null = null;
  // Once (the bench may stop it on an interrupt and again as a target). The master detaches
  // from the bench's process group, so nothing but this stops it.
  const stop = () =>
    (stopping ??= (async () => {
      const master = await pidOf(queue);
      await postfix("stop").catch(() => undefined);
      // `postfix stop` returns before the master has exited (and leaves its pid file behind).
      await until(async () => master === null || !alive(master), "Postfix to stop", 10_000).catch(() => undefined);
      await rm(base, { recursive: true, force: true });
    })());
  onCreated(stop);
  try {
    // Postfix's own processes run as `postfix` and `nobody`: they must reach into the directory.
    await chmod(base, 0o755);
    for (const directory of [config, queue, data, maildir]) await mkdir(directory);
    const owner = await idOf("postfix");
    await chown(data, owner.uid, owner.gid);
    await chown(maildir, MAILDIR_UID, MAILDIR_UID);
    await writeFile(join(config, "main.cf"), mainCf({ queue, data, maildir, logDir, logFile }));
    // Debian's pristine master.cf, not the system's (which a local setup may have changed).
    await writeFile(join(config, "master.cf"), await readFile("/usr/share/postfix/master.cf.dist", "utf8"));
    const postconf = (...args: string[]) => run("postconf", ["-c", config, ...args]);
    await postconf("-M#", "smtp/inet");
    await postconf("-M", `127.0.0.1:${smtpPort}/inet=127.0.0.1:${smtpPort} inet n - n - - smtpd`);
    // No chroot: a private instance's queue holds none of the files a chroot needs.
    await postconf("-F", "*/*/chroot = n");
    await postfix("start");
    await until(() => acceptsConnections(smtpPort), `Postfix on port ${smtpPort} (see ${logFile})`, 30_000, 100);
  } catch (error) {
    await stop();
    throw error;
  }
  const delivered = join(maildir, "inbox", "new");
  const count = async () => (await readdir(delivered).catch(() => [])).length;
  return {
    name: "postfix",
    smtpPort,
    pid: (await pidOf(queue)) ?? 0,
    async destination(tag) {
      const before = await count();
      return { address: `${tag}@${DOMAIN}`, visible: async () => (await count()) - before };
    },
    stop,
  };
}

function mainCf(paths: { queue: string; data: string; maildir: string; logDir: string; logFile: string }): string {
  return [
    "compatibility_level = 3.6",
    `queue_directory = ${paths.queue}`,
    `data_directory = ${paths.data}`,
    `maillog_file_prefixes = ${paths.logDir}`,
    `maillog_file = ${paths.logFile}`,
    "myhostname = postfix.bench.test",
    "mydestination =",
    "inet_interfaces = loopback-only",
    "inet_protocols = ipv4",
    "mynetworks = 127.0.0.0/8",
    "smtpd_peername_lookup = no",
    "smtpd_client_connection_count_limit = 0",
    `virtual_mailbox_domains = ${DOMAIN}`,
    `virtual_mailbox_base = ${paths.maildir}`,
    // One Maildir for every recipient (the trailing slash asks for Maildir format).
    "virtual_mailbox_maps = static:inbox/",
    `virtual_uid_maps = static:${MAILDIR_UID}`,
    `virtual_gid_maps = static:${MAILDIR_UID}`,
    "",
  ].join("\n");
}

async function idOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", user]), run("id", ["-g", user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The master's pid, from the file it writes at start. */
async function pidOf(queue: string): Promise<number | null> {
  try {
    return Number((await readFile(join(queue, "pid", "master.pid"), "utf8")).trim()) || null;
  } catch {
    return null;
  }
}
