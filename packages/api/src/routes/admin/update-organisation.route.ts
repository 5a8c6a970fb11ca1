import { adminNotFound } from "@mailstop/core";
import { updateOrganisation } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";

/** PATCH /admin/v1/organisations/{id}: suspension takes effect on the organisation's next request. */
export const updateOrganisationRoute = ({ db }: ApiDeps) =>
  adminRoute("updateOrganisation", async ({ params, body }) => {
    const organisation = await updateOrganisation(db, params.id, { suspended: body.suspended, organisationLimits: body.organisation_limits });
    if (organisation === null) throw adminNotFound("organisation", params.id);
    return { status: 200, body: { id: organisation.id, name: organisation.name, suspended: organisation.suspended, organisation_limits: organisation.organisationLimits } };
  });
