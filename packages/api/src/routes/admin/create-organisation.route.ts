import { newId } from "@mailstop/core";
import { insertOrganisation } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";
import { organisationView } from "./admin-views";

/** POST /admin/v1/organisations. */
export const createOrganisationRoute = ({ db }: ApiDeps) =>
  adminRoute("createOrganisation", async ({ body }) => {
    const organisation = await insertOrganisation(db, { id: newId("organisation"), name: body.name, organisationLimits: body.organisation_limits ?? false });
    return { status: 201, body: organisationView(organisation) };
  });
