import type { Schemas } from "@mailstop/sdk/source";
import { checksText, failedChecks } from "./checks.command";

type MessageChecks = Schemas["MessageChecks"];

const passing: MessageChecks = {
  message_id: "msg_01example",
  authentication: {
    status: "pass",
    dkim: [{ domain: "acme.example", selector: "s1", result: "pass", aligned: true }],
    spf: { domain: "acme.example", result: "pass" },
    dmarc: { domain: "acme.example", policy: "reject", result: "pass" },
    arc: { result: "none" },
  },
  html: { status: "warnings", issues: [{ feature: "css-display-flex", title: "display:flex", level: "unsupported", clients: ["outlook.windows"], count: 2 }] },
  links: { status: "ok", checked_at: "2026-11-27T18:00:00.000Z", results: [{ url: "https://acme.example/a", ok: true, status_code: 200, redirects: 0, final_url: "https://acme.example/a", error: null }] },
  spam: { status: "ham", score: 1.2, threshold: 5, rules: [{ name: "HTML_MESSAGE", score: 0.001, description: "HTML included in message" }] },
};

describe("mailstop checks' verdict", () => {
  it("passes when nothing fails: HTML warnings, a temperror or a check not made do not fail it", () => {
    expect(failedChecks(passing)).toEqual([]);
    expect(failedChecks({ ...passing, authentication: { ...passing.authentication!, status: "temperror" } })).toEqual([]);
    expect(failedChecks({ ...passing, authentication: null, links: { status: "not_checked", checked_at: null, results: [] }, spam: { status: "not_configured", score: null, threshold: null, rules: [] } })).toEqual([]);
  });

  it("fails on authentication that fails, a broken link, a spam verdict, naming each", () => {
    const failing: MessageChecks = {
      ...passing,
      authentication: { ...passing.authentication!, status: "fail" },
      links: { ...passing.links, status: "broken" },
      spam: { ...passing.spam, status: "spam", score: 1000 },
    };
    expect(failedChecks(failing)).toEqual(["authentication fails", "a link is broken", "spam"]);
    expect(checksText(failing).split("\n").at(-1)).toBe("failed: authentication fails, a link is broken, spam");
  });

  it("prints a line a check and a line for each thing it found", () => {
    expect(checksText(passing)).toBe(
      [
        "authentication  pass",
        "  dkim  pass  acme.example (selector s1)  aligned",
        "  spf  pass  acme.example",
        "  dmarc  pass  acme.example  policy reject",
        "  arc  none",
        "html  warnings",
        "  unsupported  display:flex  outlook.windows  2×",
        "links  ok  2026-11-27T18:00:00.000Z",
        "  ok  200  https://acme.example/a  -",
        "spam  ham  score 1.2 of 5",
        "  rule  HTML_MESSAGE  0.001  HTML included in message",
        "passed",
      ].join("\n"),
    );
  });
});
