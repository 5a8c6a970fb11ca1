import { newId } from "@mailstop/core";
import type { Db } from "@mailstop/db";
import { SmtpDialogue, type SmtpResponse, eventually } from "@mailstop/testkit";

/** Where the race sends: receiving ports (senders take them in turn) and the capture relay's port. */
export interface RaceTargets {
  receiving: readonly number[];
  capture: number;
  inboxAddress: string;
  credential: { username: string; password: string };
  senders?: number;
  captureRecipients?: number;
}

/** What the race's transactions were told. */
export interface RaceOutcome {
  /** Subjects of the receiving senders answered 250 at DATA. */
  receivedSubjects: string[];
  /** Capture recipients accepted at RCPT, and the subject of their one transaction. */
  capturedRecipients: string[];
  captureSubject: string;
  /** Every RCPT refused, on either listener. */
  refusals: SmtpResponse[];
}

async function send(port: number, to: string, subject: string): Promise<{ rcpt: SmtpResponse; end: SmtpResponse | null }> {
  const { dialogue } = await SmtpDialogue.open(port);
  try {
    await dialogue.command("EHLO race.example");
    await dialogue.command("MAIL FROM:<sender@race.example>");
    const rcpt = await dialogue.command(`RCPT TO:<${to}>`);
    if (rcpt.code !== 250) return { rcpt, end: null };
    await dialogue.command("DATA");
    dialogue.write(`Subject: ${subject}\r\n\r\nrace\r\n`);
    return { rcpt, end: await dialogue.command(".", 30_000) };
  } finally {
    dialogue.close();
  }
}

/** One capture-relay transaction naming `count` recipients; DATA when any was accepted. */
async function captureMany(port: number, credential: RaceTargets["credential"], count: number, subject: string) {
  const { dialogue } = await SmtpDialogue.open(port);
  try {
    await dialogue.command("EHLO app.example");
    const auth = await dialogue.command(`AUTH PLAIN ${Buffer.from(`\0${credential.username}\0${credential.password}`).toString("base64")}`);
    if (auth.code !== 235) throw new Error(`AUTH refused: ${auth.code} ${auth.text}`);
    await dialogue.command("MAIL FROM:<app@staging.example>");
    const replies: { address: string; reply: SmtpResponse }[] = [];
    const run = newId("message").slice(-8);
    for (let i = 0; i < count; i++) {
      const address = `user${i}.${run}@race.example`;
      replies.push({ address, reply: await dialogue.command(`RCPT TO:<${address}>`) });
    }
    const accepted = replies.filter((r) => r.reply.code === 250).map((r) => r.address);
    let end: SmtpResponse | null = null;
    if (accepted.length > 0) {
      await dialogue.command("DATA");
      dialogue.write(`Subject: ${subject}\r\n\r\ncaptured race\r\n`);
      end = await dialogue.command(".", 30_000);
    }
    return { accepted, refused: replies.filter((r) => r.reply.code !== 250).map((r) => r.reply), end };
  } finally {
    dialogue.close();
  }
}

/**
 * The ceiling race of issue 29: `senders` (50) concurrent one-recipient transactions to one
 * inbox through the receiving edges, and at the same time one capture-relay transaction naming
 * `captureRecipients` (150), all for the same project. Returns what each was told; every
 * transaction accepted at RCPT must also be accepted at DATA.
 */
export async function raceTheCeiling(targets: RaceTargets): Promise<RaceOutcome> {
  const senders = targets.senders ?? 50;
  const captureSubject = `Race capture ${newId("message")}`;
  const [captured, ...received] = await Promise.all([
    captureMany(targets.capture, targets.credential, targets.captureRecipients ?? 150, captureSubject),
    ...Array.from({ length: senders }, async (_, i) => {
      const subject = `Race ${i} ${newId("message")}`;
      return { subject, ...(await send(targets.receiving[i % targets.receiving.length]!, targets.inboxAddress, subject)) };
    }),
  ]);
  if (captured.end !== null && captured.end.code !== 250) throw new Error(`the capture transaction's DATA was refused: ${captured.end.code} ${captured.end.text}`);
  for (const sender of received) {
    if (sender.end !== null && sender.end.code !== 250) throw new Error(`a sender's DATA was refused: ${sender.end.code} ${sender.end.text}`);
  }
  return {
    receivedSubjects: received.filter((r) => r.end !== null).map((r) => r.subject),
    capturedRecipients: captured.accepted,
    captureSubject,
    refusals: [...captured.refused, ...received.filter((r) => r.end === null).map((r) => r.rcpt)],
  };
}

/**
 * Waits until every message the race accepted is stored (each by its subject and recipient),
 * then returns how many copies the project has and what its usage counters say.
 */
export async function storedAfterRace(db: Db, projectId: string, outcome: RaceOutcome): Promise<{ copies: number; metered: number }> {
  const copy = (subject: string, envelopeTo?: string) =>
    eventually(
      () =>
        db
          .selectFrom("messages")
          .select("id")
          .where("project_id", "=", projectId)
          .where("subject", "=", subject)
          .$if(envelopeTo !== undefined, (qb) => qb.where("envelope_to", "=", envelopeTo!))
          .executeTakeFirst(),
      { what: `the copy "${subject}"${envelopeTo === undefined ? "" : ` to ${envelopeTo}`}`, timeoutMs: 30_000 },
    );
  await Promise.all([...outcome.receivedSubjects.map((subject) => copy(subject)), ...outcome.capturedRecipients.map((address) => copy(outcome.captureSubject, address))]);
  const { copies } = await db.selectFrom("messages").select((eb) => eb.fn.countAll<string>().as("copies")).where("project_id", "=", projectId).executeTakeFirstOrThrow();
  const { metered } = await db.selectFrom("usage_counters").select((eb) => eb.fn.coalesce(eb.fn.sum<string>("used"), eb.lit(0)).as("metered")).where("project_id", "=", projectId).executeTakeFirstOrThrow();
  return { copies: Number(copies), metered: Number(metered) };
}
