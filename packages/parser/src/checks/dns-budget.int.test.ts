import { type TestDns, startTestDns, uniqueDomain } from "@mailstop/testkit";
import { budgetedResolver } from "./dns-budget";

// The checks' DNS: one channel per set of servers, answers and absences kept a minute, one
// question in flight per name, so a domain that sends every message costs one lookup a minute.

let dns: TestDns;
beforeAll(async () => {
  dns = await startTestDns();
});
afterAll(() => dns?.stop());

const asked = (name: string) => dns.questions().filter((question) => question === `TXT ${name}`).length;

describe("the checks' DNS lookups", () => {
  it("ask once for a name that many messages' checks look up, at once or one after another", async () => {
    const name = uniqueDomain("spf");
    dns.set(name, { txt: ["v=spf1 -all"] });
    const answers = await Promise.all(Array.from({ length: 5 }, () => budgetedResolver([dns.server]).lookup(name, "TXT")));
    expect(answers).toEqual(Array(5).fill([["v=spf1 -all"]]));
    expect(await budgetedResolver([dns.server]).lookup(name, "TXT")).toEqual([["v=spf1 -all"]]);
    expect(asked(name)).toBe(1);
  });

  it("keep a name's absence too, and ask again for a name they were not given", async () => {
    const missing = uniqueDomain("nx");
    for (let i = 0; i < 3; i++) await expect(budgetedResolver([dns.server]).lookup(missing, "TXT")).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|ENODATA)$/) });
    expect(asked(missing)).toBe(1);
    const other = uniqueDomain("other");
    await budgetedResolver([dns.server]).lookup(other, "TXT").catch(() => undefined);
    expect(asked(other)).toBe(1);
  });
});
