import { newId } from "@mailstop/core";
import { eventually, uniqueTag, useTestServer } from "@mailstop/testkit";
import { mimeBombs } from "./mime-bombs.fixture";

const server = useTestServer({ mail: true });

const run = newId("message").slice(-8);
const subjectOf = (name: string) => `bomb-${name}-${run}`;

describe("MIME bombs through SMTP", () => {
  // Each is accepted, stored with its headers readable and its limits named; its raw source stays whole.
  it.each(mimeBombs(subjectOf).map((bomb) => [bomb.name, bomb] as const))("%s", async (_name, bomb) => {
    const inbox = await server.createInbox({ tag: uniqueTag("bomb") });
    await server.send({ envelope: { from: "bomb@x.test", to: [inbox.address] }, raw: bomb.raw });
    const list = await eventually(
      async () => {
        const { json } = await server.request("GET", `/v1/messages?inbox=${encodeURIComponent(inbox.address)}`);
        return json.data?.length > 0 ? json : null;
      },
      { what: `the stored ${bomb.name}`, timeoutMs: 60_000 },
    );
    const view = (await server.request("GET", `/v1/messages/${list.data[0].id}`)).json;
    expect(view.parse_warnings).toEqual(bomb.warnings);
    expect(view.subject.startsWith(bomb.raw.match(/^Subject: (bomb-\S+)/m)![1]!)).toBe(true);
    expect(view.from).toEqual({ address: "bomb@x.test", name: expect.any(String) });
    const raw = await fetch(`${server.url}/v1/messages/${view.id}/body?format=raw`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(bomb.raw))).toBe(true);
  }, 120_000);
});
