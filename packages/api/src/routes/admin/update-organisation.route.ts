import { adminNotFound } from "@mailstop/core";
import { updateOrganisation } from "@mailstop/db";
import { announceCredentialChange } from "../../auth/credential-changes";
import { type ApiDeps, adminRoute } from "../../deps";
import { organisationView } from "./admin-views";

/**
 * PATCH /admin/v1/organisations/{id}: suspension and limits take effect on the organisation's
 * next request here, and within a second on every other instance (announced before this answers).
 */
export const updateOrganisationRoute = (deps: ApiDeps) =>
  adminRoute("updateOrganisation", async ({ params, body }) => {
    const organisation = await updateOrganisation(deps.db, params.id, {
      suspended: body.suspended,
      organisationLimits: body.organisation_limits,
      limits: body.limits && { monthlyMessages: body.limits.monthly_messages, storageBytes: body.limits.storage_bytes },
    });
    if (organisation === null) throw adminNotFound("organisation", params.id);
    await announceCredentialChange(deps, { scope: "organisation", id: organisation.id });
    return { status: 200, body: organisationView(organisation) };
  });
