import { newTransactionId } from "@mailstop/core";
import type { Db } from "../index";
import { claimStaleTransactions, ledgerState, markTransactionsDone, msUntilNextStaleTransaction, recordAcceptedTransactions } from "./ledger.repository";
import { useRepositoryDatabase } from "./repository-database.fixture";

const transaction = (acceptedAt: Date) => ({
  id: newTransactionId(),
  kind: "received" as const,
  size: 10,
  envelopeFrom: "a@b.test",
  acceptedAt,
  deliveries: [{ project_id: "prj_x", project_key: "x", raw_key: "projects/prj_x/tx/t/raw.eml", recipients: [{ address: "x.a@mailstop.test", inbox_id: "ibx_x", sim: null }] }],
});

const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);

describe("the accept ledger's repository", () => {
  const suite = useRepositoryDatabase("mailstop_ledger");
  let db: Db;
  beforeAll(() => {
    db = suite.db;
  });

  const claimedIds = async (grace: number) => (await claimStaleTransactions(db, grace, 100)).map((t) => t.id);

  it("records a transaction once, and claims only open rows older than the grace period, with what their parse job needs", async () => {
    const stale = transaction(secondsAgo(120));
    const fresh = transaction(new Date());
    const done = transaction(secondsAgo(120));
    await recordAcceptedTransactions(db, [stale, fresh, done]);
    await recordAcceptedTransactions(db, [stale]);
    await markTransactionsDone(db, [done.id]);
    const claimed = await claimStaleTransactions(db, 60, 100);
    expect(claimed.filter((t) => [stale.id, fresh.id, done.id].includes(t.id))).toEqual([{ ...stale, acceptedAt: stale.acceptedAt }]);
    expect(await ledgerState(db, stale.id)).toEqual({ state: "open", requeues: 1 });
  });

  it("claims a row again only after a grace period that doubles with each claim", async () => {
    const row = transaction(secondsAgo(120));
    await recordAcceptedTransactions(db, [row]);
    const claimedAgo = async (seconds: number) => {
      await db.updateTable("accepted_transactions").set({ requeued_at: secondsAgo(seconds) }).where("id", "=", row.id).execute();
      return (await claimedIds(10)).includes(row.id);
    };
    expect(await claimedIds(10)).toContain(row.id);
    // One claim so far: due again after 10 s.
    expect(await claimedAgo(5)).toBe(false);
    expect(await claimedAgo(15)).toBe(true);
    // Two claims: after 20 s.
    expect(await claimedAgo(15)).toBe(false);
    expect(await claimedAgo(25)).toBe(true);
    expect(await ledgerState(db, row.id)).toEqual({ state: "open", requeues: 3 });
  });

  it("says when the next open row turns stale, as the claim reckons it, and null when none is open", async () => {
    // The rows of the tests above are done with: this one starts from a ledger with none open.
    await db.updateTable("accepted_transactions").set({ state: "done" }).where("state", "=", "open").execute();
    const near = (ms: number | null, expected: number) => expect(Math.abs((ms ?? Number.NaN) - expected)).toBeLessThan(3_000);
    expect(await msUntilNextStaleTransaction(db, 60)).toBeNull();

    // Claimed twice, 5 s ago: stale again 2 × 60 s after that claim, though accepted long ago.
    const claimed = transaction(secondsAgo(500));
    await recordAcceptedTransactions(db, [claimed]);
    await db.updateTable("accepted_transactions").set({ requeues: 2, requeued_at: secondsAgo(5) }).where("id", "=", claimed.id).execute();
    near(await msUntilNextStaleTransaction(db, 60), 115_000);

    // Accepted 10 s ago, never claimed: stale in 50 s, before the other.
    const recent = transaction(secondsAgo(10));
    await recordAcceptedTransactions(db, [recent]);
    near(await msUntilNextStaleTransaction(db, 60), 50_000);
    await markTransactionsDone(db, [recent.id]);
    near(await msUntilNextStaleTransaction(db, 60), 115_000);

    // Once its back-off has run out the answer is negative, and the claim takes the row.
    await db.updateTable("accepted_transactions").set({ requeued_at: secondsAgo(125) }).where("id", "=", claimed.id).execute();
    near(await msUntilNextStaleTransaction(db, 60), -5_000);
    expect(await claimedIds(60)).toEqual([claimed.id]);
  });
});
