import { insertBlockedRecipient } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";

/** POST /admin/v1/blocked-recipients: the receiving edge refuses this address. */
export const blockRecipientRoute = ({ db }: ApiDeps) =>
  adminRoute("blockRecipient", async ({ body }) => {
    const address = body.address.toLowerCase();
    await insertBlockedRecipient(db, address);
    return { status: 201, body: { address } };
  });
