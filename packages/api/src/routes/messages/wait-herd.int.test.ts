import { newId } from "@mailstop/core";
import { uniqueTag, useTestServer } from "@mailstop/testkit";

// Many waits blocked on one inbox hear each arrival at once and share the database's answer
// about it (see ArrivalChecks in src/waits/arrival-checks.ts). Sharing must never hand a wait
// an answer to another wait's question.

const server = useTestServer({ mail: true });

const wait = (body: unknown) => server.request("POST", "/v1/messages/wait", { body });

describe("POST /v1/messages/wait, many waits on one inbox", () => {
  it("gives each of 60 concurrent waits the arrival its own match asks for, and explains misses", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("herd") });
    const alpha = `Alpha ${newId("message")}`;
    const beta = `Beta ${newId("message")}`;
    // Half of the alpha waits ask for more of the body: they share a view among themselves, not with the others.
    const alphas = Array.from({ length: 25 }, (_, i) =>
      wait({ inbox: inbox.address, match: { subject_contains: "alpha" }, timeout_ms: 20_000, ...(i % 2 === 0 ? { format: ["headers"], preview_chars: 5 } : {}) }),
    );
    const betas = Array.from({ length: 25 }, () => wait({ inbox: inbox.address, match: { subject_contains: "beta" }, timeout_ms: 20_000 }));
    const gammas = Array.from({ length: 10 }, () => wait({ inbox: inbox.address, match: { subject_contains: "gamma" }, timeout_ms: 4_000 }));
    await server.send({ to: inbox.address, subject: alpha, text: "first" });
    await server.send({ to: inbox.address, subject: beta, text: "second" });

    for (const [i, { status, json }] of (await Promise.all(alphas)).entries()) {
      expect(status).toBe(200);
      expect(json).toMatchObject({ status: "matched", message: { subject: alpha } });
      if (i % 2 === 0) {
        expect(json.message.body.text.preview).toBe("first");
        expect(json.message.body.headers.preview).toHaveLength(5);
      } else {
        expect(json.message.body.text.preview.trim()).toBe("first");
        expect(json.message.body.headers).toBeUndefined();
      }
    }
    for (const { json } of await Promise.all(betas)) expect(json).toMatchObject({ status: "matched", message: { subject: beta } });
    for (const { json } of await Promise.all(gammas)) {
      // Each gamma wait saw at most both arrivals fail its match (fewer if it started late).
      expect(json).toMatchObject({ status: "timeout" });
      expect(json.non_matching_arrivals).toBeLessThanOrEqual(2);
      if (json.non_matching_arrivals > 0) expect(json.hint).toContain("subject");
    }
  });
});
