import { type Api, ApiError, type LinkCheck, type MessageChecks } from "./api";
import { h } from "./dom";

/**
 * The Checks tab: what mailstop checked of the message (GET /v1/messages/{id}/checks), one
 * section per check, and the link check on request. Every value is written as text (dom.ts):
 * domains, URLs, feature titles and spam rules come from the message or what it points at.
 */
export function checksView(api: Api, checks: MessageChecks): HTMLElement {
  return h("div", { class: "checks" }, authentication(checks.authentication), htmlSupport(checks.html), links(api, checks.message_id, checks.links), spam(checks.spam));
}

/** How a result word reads at a glance (its colour); the word itself is always shown. */
function tone(word: string): string {
  if (["pass", "ok", "ham"].includes(word)) return "good";
  if (["fail", "broken", "spam", "error", "permerror", "temperror", "failed"].includes(word)) return "bad";
  if (["warnings", "softfail", "partial", "unsupported"].includes(word)) return "warn";
  return "plain";
}

function result(word: string): HTMLElement {
  return h("span", { class: `result ${tone(word)}` }, word);
}

type Cell = Node | string | number;

function table(head: string[], rows: Cell[][]): HTMLTableElement {
  return h("table", {}, h("thead", {}, h("tr", {}, ...head.map((cell) => h("th", {}, cell)))), h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, cell))))));
}

function section(name: string, title: string, status: string | null, ...body: Array<Node | null>): HTMLElement {
  return h("section", { class: "check", "data-check": name }, h("div", { class: "check-head" }, h("h3", {}, title), status !== null && result(status)), ...body);
}

const note = (text: string) => h("p", { class: "note" }, text);
const NOT_CHECKED = "Not checked: the message was stored before mailstop checked messages.";
/** A value the API may not have (no answer, no domain): a dash, never an empty cell. */
const orDash = (value: string | number | null | undefined) => (value === null || value === undefined || value === "" ? "—" : value);

function authentication(check: MessageChecks["authentication"]): HTMLElement {
  if (check === null) return section("authentication", "Authentication", null, note(NOT_CHECKED));
  const { dkim, spf, dmarc, arc } = check;
  return section(
    "authentication",
    "Authentication",
    check.status,
    dkim.length === 0
      ? note("No DKIM signature.")
      : table(
          ["DKIM domain", "Selector", "Result", "Aligned with From"],
          dkim.map((signature) => [signature.domain, signature.selector, result(signature.result), signature.aligned ? "yes" : "no"]),
        ),
    h(
      "dl",
      {},
      h("dt", {}, "SPF"),
      h("dd", { "data-field": "spf" }, result(spf.result), " ", orDash(spf.domain)),
      h("dt", {}, "DMARC"),
      h("dd", { "data-field": "dmarc" }, result(dmarc.result), " ", orDash(dmarc.domain), dmarc.policy === null ? ", no policy" : `, policy ${dmarc.policy}`),
      h("dt", {}, "ARC"),
      h("dd", { "data-field": "arc" }, result(arc.result)),
    ),
  );
}

function htmlSupport(check: MessageChecks["html"]): HTMLElement {
  if (check === null) return section("html", "HTML support", null, note(NOT_CHECKED));
  const body =
    check.status === "none"
      ? note("No HTML part.")
      : check.issues.length === 0
        ? note("Every feature is supported by the clients checked.")
        : table(
            ["Feature", "Level", "Clients", "Uses"],
            check.issues.map((issue) => [issue.title, result(issue.level), issue.clients.join(", "), issue.count]),
          );
  return section("html", "HTML support", check.status, body);
}

/** The Links section; "Check links" asks the API to request them, then shows the new result in its place. */
function links(api: Api, id: string, check: LinkCheck): HTMLElement {
  const button = h("button", { type: "button", "data-action": "check-links" }, "Check links");
  const error = h("p", { class: "check-error", role: "alert", hidden: true });
  const summary =
    check.checked_at === null
      ? "Not checked yet: each http(s) link is requested (the first 50; it can take a minute)."
      : h("span", {}, "Checked ", h("time", { datetime: check.checked_at }, new Date(check.checked_at).toLocaleString()));
  const results =
    check.checked_at === null
      ? null
      : check.results.length === 0
        ? note("The message has no http(s) links.")
        : table(
            ["URL", "Result", "Status", "Redirects", "Final URL", "Error"],
            check.results.map((link) => [link.url, result(link.ok ? "ok" : "failed"), orDash(link.status_code), link.redirects, orDash(link.final_url), orDash(link.error)]),
          );
  const view = section("links", "Links", check.status, h("p", { class: "notice" }, summary, button), error, results);
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = "Checking links…";
    error.hidden = true;
    try {
      view.replaceWith(links(api, id, await api.json<LinkCheck>("POST", `/v1/messages/${encodeURIComponent(id)}/checks/links`)));
    } catch (failure) {
      error.textContent = `The link check failed: ${failure instanceof ApiError ? `${failure.message} (${failure.code})` : "something went wrong."}`;
      error.hidden = false;
      button.disabled = false;
      button.textContent = "Check links";
    }
  });
  return view;
}

function spam(check: MessageChecks["spam"]): HTMLElement {
  if (check.status === "not_configured") return section("spam", "Spam", null, note("Not configured: no spam filter scores this server's mail (MAILSTOP_SPAMD is unset)."));
  return section(
    "spam",
    "Spam",
    check.status,
    note(`Score ${orDash(check.score)} (threshold ${orDash(check.threshold)})`),
    check.rules.length === 0 ? null : table(["Rule", "Score", "Description"], check.rules.map((rule) => [rule.name, rule.score, rule.description])),
  );
}
