import { newId } from "@mailstop/core";
import { type SuiteServer, expectError, uniqueTag, useTestServer } from "@mailstop/testkit";

const server = useTestServer({ mail: true });
let inbox: { id: string; address: string };
const ids: Record<string, string> = {};
const since = new Date(Date.now() - 1000);

type Mail = Parameters<SuiteServer["deliver"]>[1];

/**
 * The inbox is this file's own, so each subject finds its message. No random suffix: an id's tail
 * is now and then six digits, which the code filters rightly read as a one-time code.
 */
async function deliver(name: string, mail: Mail) {
  ids[name] = (await server.deliver(inbox, mail)).id;
}

beforeAll(async () => {
  inbox = await server.createInbox({ tag: uniqueTag("list") });
  // Sent one by one, so arrival order is this order.
  await deliver("welcome", { subject: "Welcome, Ada!", from: '"Acme Cloud" <hello@acme.example>', text: "Thanks for joining.", headers: { "X-Campaign": "spring-launch" } });
  await deliver("otp", { subject: "Your sign-in code", text: "Use 482913 to sign in.", headers: { "X-Service-Correlation-ID": "Run-7:otp" } });
  await deliver("verify", { subject: "Confirm your email", html: '<a href="https://acme.example/verify?t=1">Confirm</a> body only in html', cc: "qa-team@acme.example" });
  await deliver("newsletter", { subject: "News", text: "Monthly digest", messageId: "<digest-42@acme.example>" });
});

const list = async (query: string, apiKey = server.apiKey) => server.request("GET", `/v1/messages?${query}`, { apiKey });
const idsOf = async (query: string) => {
  const { status, json } = await list(query);
  if (status !== 200) throw new Error(`${status} ${JSON.stringify(json)}`);
  return (json.data as { id: string }[]).map((message) => message.id);
};

describe("GET /v1/messages", () => {
  describe("200", () => {
    it("lists the inbox newest first with empty previews, echoing the default limit", async () => {
      const { json } = await list(`inbox=${inbox.id}`);
      expect(json.data.map((m: { id: string }) => m.id)).toEqual([ids.newsletter, ids.verify, ids.otp, ids.welcome]);
      expect(json.limit).toBe(50);
      expect(json.next_cursor).toBeNull();
      for (const message of json.data) expect(message.body.text.preview).toBe("");
      expect(await idsOf(`inbox=${encodeURIComponent(inbox.address.toUpperCase())}`)).toHaveLength(4);
    });

    it.each([
      ["subject_contains matches the whole subject, punctuation included, case-insensitively", "subject_contains=welcome%2C%20ADA!", ["welcome"]],
      ["from_contains searches display name and address together", `from_contains=${encodeURIComponent("Acme Cloud <hello@")}`, ["welcome"]],
      ["to_contains searches the Cc header too", "to_contains=qa-team", ["verify"]],
      ["body_contains searches subject and text, never HTML", "body_contains=sign%20in", ["otp"]],
      ["body_contains does not see text that is only in HTML", "body_contains=only%20in%20html", []],
      ["correlation_id is exact and case-sensitive", "correlation_id=Run-7%3Aotp", ["otp"]],
      ["correlation_id in another case matches nothing", "correlation_id=run-7%3Aotp", []],
      ["header_contains names a header case-insensitively", "header_contains%5Bx-campaign%5D=SPRING", ["welcome"]],
      ["has_code=true", "has_code=true", ["otp"]],
      ["has_link_kind=verify", "has_link_kind=verify", ["verify"]],
      ["message_id is exact", `message_id=${encodeURIComponent("<digest-42@acme.example>")}`, ["newsletter"]],
      ["filters are ANDed", "has_code=true&subject_contains=welcome", []],
    ])("%s", async (_rule, query, expected) => {
      expect(await idsOf(`inbox=${inbox.id}&${query}`)).toEqual(expected.map((name) => ids[name]));
    });

    it("has_code=false keeps messages without codes, and since is an inclusive lower bound", async () => {
      expect(await idsOf(`inbox=${inbox.id}&has_code=false`)).toEqual([ids.newsletter, ids.verify, ids.welcome]);
      expect(await idsOf(`inbox=${inbox.id}&since=${encodeURIComponent(since.toISOString())}`)).toHaveLength(4);
      expect(await idsOf(`inbox=${inbox.id}&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
      const newest = await server.db.selectFrom("messages").select("received_at").where("id", "=", ids.newsletter!).executeTakeFirstOrThrow();
      expect(await idsOf(`inbox=${inbox.id}&since=${encodeURIComponent(newest.received_at.toISOString())}`)).toContain(ids.newsletter);
    });

    it("pages with a cursor, each message once, newest first", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const { json } = await list(`inbox=${inbox.id}&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        seen.push(...json.data.map((m: { id: string }) => m.id));
        cursor = json.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual([ids.newsletter, ids.verify, ids.otp, ids.welcome]);
    });

    it("lists across the project without inbox, and never shows another project's mail", async () => {
      expect(await idsOf("subject_contains=confirm%20your")).toEqual([ids.verify]);
      const other = await server.bootstrap();
      expect((await list("", other.apiKey)).json.data).toEqual([]);
    });
  });

  describe("400 and 404", () => {
    it("gives inbox_not_found for an inbox that does not exist, never an empty list", async () => {
      expectError(await list(`inbox=${newId("inbox")}`), { status: 404, code: "inbox_not_found", retryable: false });
    });

    it.each(["limit=0", "limit=201", "has_link_kind=magic", "since=yesterday", "correlation_id=-bad", `cursor=${Buffer.from('{"v":1,"before":"x"}').toString("base64url")}`])(
      "refuses %s",
      async (query) => {
        expectError(await list(query), { status: 400, code: "invalid_request", retryable: false });
      },
    );
  });
});
