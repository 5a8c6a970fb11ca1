import type { Schemas } from "@mailstop/sdk/source";
import { type ClientOptions, EXIT, clientAction, clientCommand, lines } from "./client-command";

type MessageChecks = Schemas["MessageChecks"];

/**
 * What makes `mailstop checks` exit 1 (docs/decisions.md "Message checks (issue 35)"):
 * authentication that fails, a broken link, a spam verdict. A check not made (null,
 * not_checked, not_configured), a temperror or HTML warnings do not.
 */
export function failedChecks(checks: MessageChecks): string[] {
  const failed: string[] = [];
  if (checks.authentication?.status === "fail") failed.push("authentication fails");
  if (checks.links.status === "broken") failed.push("a link is broken");
  if (checks.spam.status === "spam") failed.push("spam");
  return failed;
}

/** One line a check, then a line for each thing it found. */
export function checksText(checks: MessageChecks): string {
  const { authentication, html, links, spam } = checks;
  const rows: (string | number | null)[][] = [];
  if (authentication === null) rows.push(["authentication", "not checked"]);
  else {
    rows.push(["authentication", authentication.status]);
    for (const dkim of authentication.dkim) rows.push(["  dkim", dkim.result, `${dkim.domain} (selector ${dkim.selector})`, dkim.aligned ? "aligned" : "not aligned"]);
    rows.push(["  spf", authentication.spf.result, authentication.spf.domain]);
    rows.push(["  dmarc", authentication.dmarc.result, authentication.dmarc.domain, `policy ${authentication.dmarc.policy ?? "none published"}`]);
    rows.push(["  arc", authentication.arc.result]);
  }
  if (html === null) rows.push(["html", "not checked"]);
  else {
    rows.push(["html", html.status]);
    for (const issue of html.issues) rows.push(["  " + issue.level, issue.title, issue.clients.join(","), `${issue.count}×`]);
  }
  rows.push(["links", links.status, links.checked_at]);
  for (const link of links.results) rows.push(["  " + (link.ok ? "ok" : "broken"), link.status_code, link.url, link.error]);
  rows.push(["spam", spam.status, spam.score === null ? null : `score ${spam.score} of ${spam.threshold}`]);
  for (const rule of spam.rules) rows.push(["  rule", rule.name, rule.score, rule.description]);
  const failed = failedChecks(checks);
  return `${lines(rows)}\n${failed.length === 0 ? "passed" : `failed: ${failed.join(", ")}`}`;
}

/**
 * `mailstop checks <message-id> [--links]`: prints what mailstop checked of a message, after
 * checking its links with `--links`; exits 0 when nothing fails (see {@link failedChecks}),
 * 1 when something does or on an error (its line on stderr).
 */
export function checksCommand() {
  let failed: string[] = [];
  const run = clientAction(async (mailstop, options: ClientOptions & { links?: boolean }, id) => {
    if (options.links === true) await mailstop.messages.checkLinks(id);
    const checks = await mailstop.messages.checks(id);
    failed = failedChecks(checks);
    return { json: checks, text: checksText(checks) };
  });
  return clientCommand("checks", "print a message's checks: authentication, HTML support, links, spam (exit 0 passed, 1 failed or error)")
    .argument("<id>", "a message id (msg_…)")
    .option("--links", "check the message's links first (up to 50, 5 s each: about a minute at worst)")
    .action(async (...params: unknown[]) => {
      failed = [];
      await run(...params);
      if (process.exitCode === EXIT.ok && failed.length > 0) process.exitCode = EXIT.error;
    });
}
