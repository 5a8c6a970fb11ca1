import { newId } from "@mailstop/core";
import { type TestProject, type TestServer, eventually, rawRequest, smtpTransport, startTestServer, uniqueTag } from "@mailstop/testkit";
import { mimeBombs } from "./mime-bombs.fixture";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ mail: true });
  project = await server.bootstrap();
});
afterAll(() => server.stop());

const run = newId("message").slice(-8);
const subjectOf = (name: string) => `bomb-${name}-${run}`;

describe("MIME bombs through SMTP", () => {
  // Each is accepted, stored with its headers readable and its limits named; its raw source stays whole.
  it.each(mimeBombs(subjectOf).map((bomb) => [bomb.name, bomb] as const))("%s", async (_name, bomb) => {
    const { data: inbox } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("bomb") } });
    await smtpTransport(server.smtp!.receiving).sendMail({ envelope: { from: "bomb@x.test", to: [inbox!.address] }, raw: bomb.raw });
    const auth = { authorization: `Bearer ${project.apiKey}` };
    const list = await eventually(
      async () => {
        const { json } = await rawRequest(server.url, "GET", `/v1/messages?inbox=${encodeURIComponent(inbox!.address)}`, { headers: auth });
        return json.data?.length > 0 ? json : null;
      },
      { what: `the stored ${bomb.name}`, timeoutMs: 60_000 },
    );
    const view = (await rawRequest(server.url, "GET", `/v1/messages/${list.data[0].id}`, { headers: auth })).json;
    expect(view.parse_warnings).toEqual(bomb.warnings);
    expect(view.subject.startsWith(bomb.raw.match(/^Subject: (bomb-\S+)/m)![1]!)).toBe(true);
    expect(view.from).toEqual({ address: "bomb@x.test", name: expect.any(String) });
    const raw = await fetch(`${server.url}/v1/messages/${view.id}/body?format=raw`, { headers: auth });
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(bomb.raw))).toBe(true);
  }, 120_000);
});
