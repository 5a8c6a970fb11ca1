import { newId } from "@mailstop/core";
import { ledgerState } from "@mailstop/db";
import { SmtpDialogue, type TestProject, eventually, sendOneRaw, uniqueTag, useTestServer } from "@mailstop/testkit";

const send = (port: number, to: string, subject: string, replyWithinMs?: number) =>
  sendOneRaw(port, to, subject, { messageId: `${newId("message")}@x.test`, ...(replyWithinMs === undefined ? {} : { replyWithinMs }) });

const transactionOf = (text: string) => /as ([0-9a-z]{26})$/.exec(text)?.[1] ?? null;

async function createInbox(project: TestProject) {
  const { data, error } = await project.client.POST("/v1/inboxes", { body: { tag: uniqueTag("ledger") } });
  if (error || !data) throw new Error(JSON.stringify(error));
  return data;
}

describe("the accept ledger", () => {
  const server = useTestServer({ mail: true, project: false });

  it("holds a row for every transaction by the time it is answered 250, and the parse closes it with its messages", async () => {
    const project = await server.bootstrap();
    const inbox = await createInbox(project);
    const subject = `Ledger ${newId("message")}`;
    const reply = await send(server.smtp!.receiving, inbox.address, subject);
    expect(reply.code).toBe(250);
    const transaction = transactionOf(reply.text);
    expect(transaction).not.toBeNull();
    // Read right after the 250: the row was committed before it.
    expect(await ledgerState(server.db, transaction!)).toEqual({ state: expect.stringMatching(/^(open|done)$/), requeues: 0 });
    await eventually(async () => ((await ledgerState(server.db, transaction!))?.state === "done" ? true : null), { what: "the ledger row done" });
    const rows = await server.db.selectFrom("messages").select("subject").where("inbox_id", "=", inbox.id).execute();
    expect(rows).toEqual([{ subject }]);
  });

  it("records the connection the transaction came over: the client's IP address, its HELO name and MAIL FROM", async () => {
    const project = await server.bootstrap();
    const inbox = await createInbox(project);
    const { dialogue } = await SmtpDialogue.open(server.smtp!.receiving);
    let end;
    try {
      expect((await dialogue.command("EHLO relay.ledger.test")).code).toBe(250);
      expect((await dialogue.command("MAIL FROM:<bounces@ledger.test>")).code).toBe(250);
      expect((await dialogue.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
      expect((await dialogue.command("DATA")).code).toBe(354);
      dialogue.write(`Subject: Connection ${newId("message")}\r\n\r\nhello\r\n`);
      end = await dialogue.command(".");
    } finally {
      dialogue.close();
    }
    expect(end.code).toBe(250);
    const row = await server.db
      .selectFrom("accepted_transactions")
      .select(["client_address", "client_helo", "envelope_from"])
      .where("id", "=", transactionOf(end.text)!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ client_address: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/), client_helo: "relay.ledger.test", envelope_from: "bounces@ledger.test" });
  });
});
