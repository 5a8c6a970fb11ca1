import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { newId } from "@mailstop/core";
import { type TestServer, describeOnSmallDisk, eventually, sendOneRaw, startTestServer, uniqueTag } from "@mailstop/testkit";

// The monolith with its objects (and, embedded, PGlite) under MAILSTOP_DATA_DIR on a real
// 16 MiB tmpfs: mail that would fill it is refused with 452 4.3.1, and taken again once space is back.

/** Raw sources under the data directory's object store, temporary files of puts included. */
async function objectFiles(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, "objects"), { recursive: true }).catch(() => [] as string[])).filter((file) => file.endsWith(".eml") || file.includes(".partial"));
}

/** /ready's status and the modules it names as not ready. */
async function readiness(server: TestServer): Promise<{ status: number; notReady: string[] }> {
  const response = await fetch(`${server.url}/ready`);
  const body = (await response.json()) as { error?: { details?: { not_ready?: string[] } } };
  return { status: response.status, notReady: body.error?.details?.not_ready ?? [] };
}

async function serverOn(dataDir: string, minFreeMiB: string): Promise<{ server: TestServer; address: string; inboxId: string }> {
  // Without mail: true no S3 server is started, so the objects are files under dataDir.
  const server = await startTestServer({ target: "all", dataDir, env: { MAILSTOP_MIN_FREE_DISK_MB: minFreeMiB } });
  const project = await server.bootstrap();
  const { data, error } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("disk") } });
  if (error || !data) throw new Error(JSON.stringify(error));
  return { server, address: data.address, inboxId: data.id };
}

describeOnSmallDisk("the SMTP edge on a disk that fills up", 16, (disk) => {
  afterEach(() => disk().free());

  it("refuses mail with 452 4.3.1, writing nothing, and /ready names smtp-edge, while less than MAILSTOP_MIN_FREE_DISK_MB would stay free; takes it again once space is freed", async () => {
    const dataDir = join(disk().path, "guarded");
    const { server, address, inboxId } = await serverOn(dataDir, "4");
    try {
      expect((await sendOneRaw(server.smtp!.receiving, address, `room ${newId("message")}`)).code).toBe(250);
      const before = await objectFiles(dataDir);

      // 2 MiB free: room for the message, but under the 4 MiB to keep.
      disk().fill(2 * 1024 * 1024);
      expect(disk().freeBytes()).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      const refused = await sendOneRaw(server.smtp!.receiving, address, `full ${newId("message")}`);
      expect(refused).toEqual({ code: 452, text: "4.3.1 Insufficient system storage, please retry later" });
      expect(await objectFiles(dataDir)).toEqual(before);
      expect(await readiness(server)).toEqual({ status: 503, notReady: ["smtp-edge"] });
      // Reads go on.
      expect((await fetch(`${server.url}/health`)).status).toBe(200);

      disk().free();
      expect(await readiness(server)).toEqual({ status: 200, notReady: [] });
      const subject = `freed ${newId("message")}`;
      expect((await sendOneRaw(server.smtp!.receiving, address, subject)).code).toBe(250);
      await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inboxId).where("subject", "=", subject).executeTakeFirst(), { what: "the message sent once space was freed" });
    } finally {
      await server.stop();
    }
  });

  it("answers 452 4.3.1, not 451, when a write itself meets ENOSPC (the check off), and leaves no partial object", async () => {
    const dataDir = join(disk().path, "unguarded");
    const { server, address } = await serverOn(dataDir, "0");
    try {
      // A first message creates the project's folders, so the next put needs room for its bytes alone.
      expect((await sendOneRaw(server.smtp!.receiving, address, `room ${newId("message")}`)).code).toBe(250);
      const before = await objectFiles(dataDir);
      disk().fill();
      const refused = await sendOneRaw(server.smtp!.receiving, address, `full ${newId("message")}`);
      expect(refused).toEqual({ code: 452, text: "4.3.1 Insufficient system storage, please retry later" });
      // The refused transaction's files are removed in the background.
      await eventually(async () => ((await objectFiles(dataDir)).length === before.length ? true : undefined), { what: "no partial object left" });
    } finally {
      await server.stop();
    }
  });
});
