import { periodStart } from "@mailstop/core";
import { sql } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { Db } from "../database";
import { prepareVaryingStatement } from "../prepared-statements";
import { type Admission, type AdmissionRow, admissionColumns, toAdmission } from "./admission.repository";

/** Where a receiving-edge recipient goes: its inbox, the project that owns it, and whether that project's mail is admitted. */
export interface DeliveryTarget {
  inboxId: string;
  projectId: string;
  projectKey: string;
  admission: Admission;
}

/** Where to look for a recipient's inbox: the shared domain within the key's project, or a verified custom domain. */
export type RecipientRoute = { kind: "shared"; projectKey: string } | { kind: "custom" };

function targetQuery(db: Db, address: string, route: RecipientRoute, period: string) {
  const inboxes = db
    .selectFrom("inboxes as i")
    .innerJoin("projects as p", "p.id", "i.project_id")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select(["i.id as inbox_id", "p.id as project_id", "p.key as project_key"])
    .select(admissionColumns(period))
    .where("i.address", "=", address);
  // On the shared domain the project is part of the match, so an address can only reach the
  // project its key names; a custom domain must be verified by the project that owns it.
  return route.kind === "shared"
    ? inboxes.where("p.key", "=", route.projectKey).where("i.domain_id", "is", null)
    : inboxes
        .innerJoin("domains as d", (join) => join.onRef("d.id", "=", "i.domain_id").onRef("d.project_id", "=", "i.project_id"))
        .where("d.status", "=", "verified");
}

/**
 * What the receiving edge needs to decide one RCPT, in one round trip on the path of every
 * message's 250: whether the address is blocked, and its inbox when `route` says where to look
 * (null: the address needs no inbox, e.g. a refusing `sim.*` tag). `verifiedDomain` also asks
 * whether that custom domain is verified, for a recipient that needs no inbox but must still
 * be on a domain the service receives for. The target carries its project's admission, with
 * the usage its limits need in `period`, so a limited project costs no second round trip.
 */
export async function lookupRecipient(
  db: Db,
  address: string,
  route: RecipientRoute | null,
  verifiedDomain: string | null = null,
  period: string = periodStart(new Date()),
): Promise<{ blocked: boolean; target: DeliveryTarget | null; domainVerified: boolean | null }> {
  const lower = address.toLowerCase();
  const query = db
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom("blocked_recipients").select("address").where("address", "=", lower)).as("blocked"),
      (route === null ? sql<null>`null` : jsonObjectFrom(targetQuery(db, lower, route, period))).as("target"),
      verifiedDomain === null
        ? sql<null>`null`.as("domain_verified")
        : eb.exists(eb.selectFrom("domains").select("id").where("domain", "=", verifiedDomain.toLowerCase()).where("status", "=", "verified")).as("domain_verified"),
    ])
    .compile();
  // A handful of texts (one per kind of route, and the domain question), each a lookup by unique keys: prepared.
  prepareVaryingStatement(query.sql);
  const [row] = (await db.executeQuery(query)).rows;
  return {
    blocked: row!.blocked === true,
    target: row!.target === null ? null : toTarget(row!.target),
    domainVerified: row!.domain_verified === null ? null : row!.domain_verified === true,
  };
}

function toTarget(row: AdmissionRow & { inbox_id: string; project_id: string; project_key: string }): DeliveryTarget {
  return { inboxId: row.inbox_id, projectId: row.project_id, projectKey: row.project_key, admission: toAdmission(row) };
}

/**
 * The capture relay's credential of that username, with its project and the project's
 * admission as of now, without usage: the relay reads usage at each RCPT (findAdmission).
 */
export async function findSmtpCredential(
  db: Db,
  username: string,
): Promise<{ projectId: string; projectKey: string; passwordHash: Buffer; admission: Admission } | null> {
  const row = await db
    .selectFrom("smtp_credentials as c")
    .innerJoin("projects as p", "p.id", "c.project_id")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select(["p.id as project_id", "p.key as project_key", "c.password_hash"])
    .select(admissionColumns(null))
    .where("c.username", "=", username)
    .executeTakeFirst();
  return row ? { projectId: row.project_id, projectKey: row.project_key, passwordHash: row.password_hash, admission: toAdmission(row) } : null;
}
