import { newId } from "@mailstop/core";
import { insertDomain } from "@mailstop/db";
import { type SuiteServer, expectError, uniqueDomain } from "@mailstop/testkit";

/**
 * The custom-domain rules every route that makes an inbox keeps (POST /v1/inboxes and
 * /v1/inboxes/for-run), as tests of the enclosing suite: another project's verified domain is as
 * unknown as any (404 `domain_not_found`), and a pending domain of the project's is 409
 * `domain_not_verified`, retryable after 60 s. `makeOn` asks the route for an inbox on `domain`
 * with the suite's project's key.
 */
export function describeDomainRules(server: SuiteServer, makeOn: (domain: string) => ReturnType<SuiteServer["request"]>): void {
  describe("404 and 409 on a domain that is not the project's verified one", () => {
    it("gives domain_not_found for another project's verified domain", async () => {
      const other = await server.bootstrap();
      const domain = uniqueDomain("theirs");
      await insertDomain(server.db, { id: newId("domain"), projectId: other.projectId, domain, ownershipToken: "t", status: "verified" });
      expectError(await makeOn(domain), { status: 404, code: "domain_not_found", retryable: false });
    });

    it("gives domain_not_verified, retryable after 60 s, for a pending domain", async () => {
      const domain = uniqueDomain("pending");
      await insertDomain(server.db, { id: newId("domain"), projectId: server.project.projectId, domain, ownershipToken: "t" });
      const outcome = await makeOn(domain);
      const error = expectError(outcome, { status: 409, code: "domain_not_verified", retryable: true });
      expect(error.retry_after_seconds).toBe(60);
      expect(outcome.headers.get("retry-after")).toBe("60");
    });
  });
}
