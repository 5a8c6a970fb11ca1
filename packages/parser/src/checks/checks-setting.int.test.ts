import { newId } from "@mailstop/core";
import { eventually, keyRequest, smtpTransport, uniqueTag, useTestServer } from "@mailstop/testkit";

// MAILSTOP_CHECKS leaves a check out: the parser does not compute it (no DNS lookup for
// authentication) and the message reads null for it, while the others are computed.
const server = useTestServer({ mail: true, env: { MAILSTOP_CHECKS: "html" } });

describe("MAILSTOP_CHECKS", () => {
  it("computes only the checks it names: html, and no authentication", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("checks-setting") });
    const subject = `Checks setting ${newId("message")}`;
    await smtpTransport(server.smtp!.receiving).sendMail({ from: "app@example.com", to: inbox.address, subject, html: '<div style="display:flex">hi</div>' });
    const row = await eventually(() => server.db.selectFrom("messages").select(["id", "checks"]).where("inbox_id", "=", inbox.id).where("subject", "=", subject).executeTakeFirst(), {
      what: `message "${subject}"`,
    });
    expect(row.checks?.authentication).toBeNull();
    expect(row.checks?.html?.status).toBe("warnings");
    const { status, json } = await keyRequest(server.url, server.apiKey, "GET", `/v1/messages/${row.id}/checks`);
    expect(status).toBe(200);
    expect(json).toMatchObject({ authentication: null, html: { status: "warnings" } });
  });
});
