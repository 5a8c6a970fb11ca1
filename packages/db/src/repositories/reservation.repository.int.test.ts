import { newId, newTransactionId, periodStart } from "@mailstop/core";
import { uniqueProjectKey } from "@mailstop/testkit";
import type { Db } from "../index";
import { markTransactionsDone, pruneDoneTransactions, recordAcceptedTransactions } from "./ledger.repository";
import { useRepositoryDatabase } from "./repository-database.fixture";
import { releaseReservations, reserveRecipient, reservedRecipients, settleReservations } from "./reservation.repository";
import { insertOrganisation, insertProject, updateOrganisation, updateProjectLimits } from "./tenancy.repository";

const period = () => periodStart(new Date());

describe("ingest reservations", () => {
  const suite = useRepositoryDatabase("mailstop_reservations", [], { maxConnections: 8 });
  let db: Db;
  beforeAll(() => {
    db = suite.db;
  });

  async function project(organisationId?: string): Promise<{ id: string; organisationId: string }> {
    const organisation = organisationId ?? (await insertOrganisation(db, { id: newId("organisation"), name: "o" })).id;
    const created = await insertProject(db, { id: newId("project"), organisationId: organisation, key: uniqueProjectKey("r"), region: "us" });
    return { id: created.id, organisationId: organisation };
  }

  const reserve = (projectId: string, transactionId = newTransactionId(), ttlSeconds?: number) =>
    reserveRecipient(db, { transactionId, projectId }, period(), ttlSeconds).then((outcome) => (outcome.reserved ? "reserved" : outcome.refusal));

  /** Records the transaction's accept-ledger row, as the edge does before its 250. */
  const accept = (id: string, projectId: string) =>
    recordAcceptedTransactions(db, [
      { id, kind: "received", size: 1, envelopeFrom: null, acceptedAt: new Date(), deliveries: [{ project_id: projectId, project_key: "k", raw_key: `projects/${projectId}/tx/${id}/raw.eml`, recipients: [] }] },
    ]);

  it("admits up to the ceiling however many reserve at once, one row per transaction and project", async () => {
    const { id } = await project();
    await updateProjectLimits(db, id, { ingestCeiling: 5 });
    const shared = newTransactionId();
    const outcomes = await Promise.all([...Array.from({ length: 20 }, () => reserve(id)), reserve(id, shared), reserve(id, shared)]);
    expect(outcomes.filter((o) => o === "reserved")).toHaveLength(5);
    expect(new Set(outcomes.filter((o) => o !== "reserved"))).toEqual(new Set(["ingest_ceiling"]));
    const mine = await reservedRecipients(db, shared);
    expect([{}, { [id]: 1 }, { [id]: 2 }]).toContainEqual(mine);
  });

  it("keeps counting an accepted transaction until its ledger row is done, then lets go (the usage counters count it then)", async () => {
    const { id } = await project();
    await updateProjectLimits(db, id, { ingestCeiling: 1 });
    const accepted = newTransactionId();
    // Already past its expiry (a negative time to live): it still counts, its ledger row is open.
    expect(await reserve(id, accepted, -1)).toBe("reserved");
    await accept(accepted, id);
    expect(await reserve(id)).toBe("ingest_ceiling");
    await markTransactionsDone(db, [accepted]);
    const next = newTransactionId();
    expect(await reserve(id, next)).toBe("reserved");
    // The dead row went on the way.
    expect(await reservedRecipients(db, accepted)).toEqual({});
  });

  it("a settled reservation never counts again once its done ledger row is pruned, however young", async () => {
    const { id } = await project();
    await updateProjectLimits(db, id, { ingestCeiling: 1 });
    const accepted = newTransactionId();
    expect(await reserve(id, accepted)).toBe("reserved");
    await accept(accepted, id);
    await settleReservations(db, accepted, [id]);
    expect(await reserve(id)).toBe("ingest_ceiling");
    await markTransactionsDone(db, [accepted]);
    // Pruned at once (MAILSTOP_ORPHAN_SWEEP_AGE_S may be seconds): without a ledger row, only
    // its settled expiry keeps the reservation from counting as a transaction still in RCPT.
    await pruneDoneTransactions(db, new Date(Date.now() + 60_000), 1000);
    expect(await reserve(id)).toBe("reserved");
  });

  it("lets go of a transaction released, or one that never reached DATA once it expires", async () => {
    const { id } = await project();
    await updateProjectLimits(db, id, { ingestCeiling: 1 });
    const released = newTransactionId();
    expect(await reserve(id, released)).toBe("reserved");
    expect(await reserve(id)).toBe("ingest_ceiling");
    await releaseReservations(db, released, [id]);
    // An edge killed before DATA: no ledger row follows, and once expired the row counts no more.
    const stale = newTransactionId();
    expect(await reserve(id, stale, -1)).toBe("reserved");
    expect(await reserve(id)).toBe("reserved");
    expect(await reservedRecipients(db, stale)).toEqual({});
  });

  it("counts an organisation's monthly_messages over its projects with organisation limits on, and only then", async () => {
    const first = await project();
    const second = await project(first.organisationId);
    await updateOrganisation(db, first.organisationId, { organisationLimits: true, limits: { monthlyMessages: 3 } });
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => reserve(i % 2 === 0 ? first.id : second.id)));
    expect(outcomes.filter((o) => o === "reserved")).toHaveLength(3);
    expect(new Set(outcomes.filter((o) => o !== "reserved"))).toEqual(new Set(["organisation_limit"]));
    await updateOrganisation(db, first.organisationId, { organisationLimits: false });
    expect(await reserve(first.id)).toBe("reserved");
  });

  it("refuses a suspended organisation, and a project that is gone", async () => {
    const { id, organisationId } = await project();
    await updateProjectLimits(db, id, { ingestCeiling: 10 });
    await updateOrganisation(db, organisationId, { suspended: true });
    expect(await reserve(id)).toBe("suspended");
    expect(await reserve(newId("project"))).toBeNull();
  });
});
