import { MailstopError, periodStart } from "@mailstop/core";
import { readUsage } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { billingPeriod, toUsageView } from "../../usage/usage.view";

/** GET /v1/usage: never refused for a spent limit (enforceAllowance leaves it alone). */
export const getUsageRoute = ({ db, config }: ApiDeps) =>
  publicRoute("getUsage", async ({ auth }) => {
    const now = new Date();
    const usage = await readUsage(db, auth.project.id, periodStart(now));
    if (usage === null) throw new MailstopError("project_not_found", "The project of this key no longer exists.");
    return { status: 200, body: toUsageView(usage, config, billingPeriod(now)) };
  });
