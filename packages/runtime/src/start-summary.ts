import type { FirstStart } from "@mailstop/api";
import type { Config } from "@mailstop/config";

/** What the summary of a monolith's start tells: where it listens, and what it found. */
export interface StartFacts {
  config: Config;
  smtpPorts: { receiving: number; capture: number } | undefined;
  firstStart: FirstStart | undefined;
}

/** A listener's host as a person types it: a wildcard bind is reached at localhost. */
const reachableHost = (host: string) => (host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host);

/**
 * The short text a person reads when `mailstop serve` (or `pnpm start`) is ready: the URLs of the
 * API, its reference and the viewer, the SMTP ports with the address form and the rule that an
 * inbox exists before mail to it is accepted, the project it serves, and how to stop. The JSON
 * log says the same for machines; this is printed to stdout, once per start.
 */
export function startSummary({ config, smtpPorts, firstStart }: StartFacts): string {
  const url = config.http.publicUrl;
  const project = firstStart?.kind === "created" ? "local" : firstStart?.kind === "not-first" ? (firstStart.projects.includes("local") ? "local" : firstStart.projects[0]) : undefined;
  const address = `${project ?? "<project_key>"}.<tag>@${config.sharedDomain}`;
  const host = reachableHost(config.host);
  const lines = [
    "",
    "mailstop is ready.",
    `  API        ${url}   reference: ${url}/docs`,
    `  Viewer     ${url}/ui/   (sign in with the API key)`,
  ];
  if (smtpPorts !== undefined) {
    lines.push(
      `  SMTP       ${host}:${smtpPorts.receiving}   mail to ${address}, once that inbox exists:`,
      `             create it first (POST /v1/inboxes {"tag": "<tag>"}); mail to an address without an inbox is refused`,
      `  Relay      ${host}:${smtpPorts.capture}   stores what your app sends, delivers nothing${project === undefined ? "" : ` (AUTH user ${project})`}`,
    );
  }
  if (firstStart?.kind === "created") lines.push("  Project    local, created now: its API key and relay password are printed above, once");
  else if (firstStart?.kind === "not-first") {
    const others = firstStart.projects.filter((key) => key !== project);
    lines.push(
      `  Project    ${project}${others.length > 0 ? ` (also: ${others.join(", ")})` : ""}, from an earlier start: its key was printed then;`,
      `             a new one: mailstop keys create --project ${project}`,
    );
  } else if (firstStart?.kind === "left-to-operator") lines.push("  Project    none yet: create one with POST /admin/v1/bootstrap (MAILSTOP_ADMIN_TOKEN)");
  lines.push("  Stop       Ctrl-C: open SMTP transactions finish, nothing accepted is lost", "");
  return lines.join("\n");
}
