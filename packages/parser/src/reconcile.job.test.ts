import { assertJobPayload } from "@mailstop/messaging";
import { parseJobOf } from "./reconcile.job";

const deliveries = [{ project_id: "prj_x", project_key: "x", raw_key: "projects/prj_x/tx/x/raw.eml", recipients: [{ address: "x.t@mailstop.test", inbox_id: null, sim: null }] }];
const row = { id: "tx1", kind: "received" as const, size: 3, envelopeFrom: "a@b.test", acceptedAt: new Date(), deliveries };

describe("the reconciler's parse job", () => {
  it("carries the connection the ledger row recorded, so a requeued message is checked as its first parse would have", () => {
    const job = parseJobOf({ ...row, clientAddress: "192.0.2.7", clientHelo: "mx.b.test" });
    expect(job).toMatchObject({ client_address: "192.0.2.7", client_helo: "mx.b.test", envelope_from: "a@b.test" });
    expect(() => assertJobPayload("parse-message", job)).not.toThrow();
  });

  it("still makes a valid job of a row from before the connection was recorded", () => {
    const job = parseJobOf({ ...row, clientAddress: null, clientHelo: null });
    expect(job).not.toHaveProperty("client_address");
    expect(() => assertJobPayload("parse-message", job)).not.toThrow();
    expect(() => assertJobPayload("parse-message", { ...job, client_address: null })).toThrow();
  });
});
