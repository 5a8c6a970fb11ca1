import { type Server, createServer } from "node:http";
import { uniqueTag, useTestServer } from "@mailstop/testkit";
import { Mailstop } from "@mailstop/sdk/source";
import { type Run, runClient } from "./run-cli.fixture";

// `mailstop checks` as a CI script sees it: the binary against a real mailstop (both worlds),
// whose links point at a loopback server the allow list admits.

let site: Server;
let siteUrl: string;
beforeAll(async () => {
  site = createServer((req, res) => res.writeHead(req.url === "/missing" ? 404 : 200).end());
  await new Promise<void>((done) => site.listen(0, "127.0.0.1", done));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(async () => {
  site?.closeAllConnections();
  await new Promise((done) => site?.close(done));
});
const server = useTestServer({ mail: true, env: { MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.1/32" } });

const mailstop = (...args: string[]): Promise<Run> => runClient(server, args, 90_000);

/** A stored message whose HTML links to `path` on the loopback site. */
async function messageLinkingTo(path: string): Promise<string> {
  const inbox = await server.createInbox({ tag: uniqueTag("checks-cli") });
  const subject = `Checks ${uniqueTag("s")}`;
  await server.send({ to: inbox.address, subject, html: `<p><a href="${siteUrl}${path}">open</a></p>` });
  const sdk = new Mailstop({ baseUrl: server.url, apiKey: server.apiKey });
  return (await sdk.messages.waitFor(inbox.id, { subject_contains: subject }, { timeoutMs: 30_000 })).id;
}

describe("mailstop checks", () => {
  it("prints each check and exits 0 when nothing fails; --links checks the links first", async () => {
    const id = await messageLinkingTo("/ok");
    const before = await mailstop("checks", id);
    expect({ code: before.code, stderr: before.stderr }).toEqual({ code: 0, stderr: "" });
    expect(before.stdout).toMatch(/^authentication {2}none$/m);
    expect(before.stdout).toMatch(/^links {2}not_checked {2}-$/m);
    expect(before.stdout).toMatch(/^spam {2}not_configured {2}-$/m);
    expect(before.stdout.trimEnd().split("\n").at(-1)).toBe("passed");

    const checked = await mailstop("checks", id, "--links", "--json");
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout).links).toMatchObject({ status: "ok", results: [{ url: `${siteUrl}/ok`, ok: true, status_code: 200 }] });
  }, 60_000);

  it("exits 1 and names what failed when a link is broken", async () => {
    const id = await messageLinkingTo("/missing");
    const run = await mailstop("checks", id, "--links");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`  broken  404  ${siteUrl}/missing`);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("failed: a link is broken");
  }, 60_000);

  it("exits 1 with the error on stderr for a message that does not exist", async () => {
    const run = await mailstop("checks", "msg_00000000000000000000000000");
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/^mailstop: message_not_found: /);
  });
});
