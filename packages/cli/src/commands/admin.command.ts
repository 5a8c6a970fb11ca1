import { Command, Option } from "commander";
import { type AdminClient, createAdminClient } from "./admin-client";
import type { Config } from "@mailstop/config";

const list = (value: string) => value.split(",").map((s) => s.trim()).filter(Boolean);
const bool = (value: string) => {
  if (value !== "true" && value !== "false") throw new Error(`expected true or false, got ${value}`);
  return value === "true";
};
const int = (value: string) => {
  if (!/^\d+$/.test(value)) throw new Error(`expected a whole number, got ${value}`);
  return Number(value);
};
/** A limit: a whole number, or `none` to remove it (null). */
/**
 * `none` removes a limit. The parser cannot return null for it: commander stores a null from a
 * parser as "", so `none` travels as itself and {@link limitValue} turns it into null.
 */
const limit = (value: string): number | "none" => (value === "none" ? "none" : int(value));
const limitValue = (value: number | "none" | undefined) => (value === "none" ? null : value);
const shown = (value: number | null) => (value === null ? "none" : String(value));

/**
 * The options of a set of limits, `--monthly-messages <n|none>` for `monthly_messages` (`none`
 * removes it), from their API names and descriptions: `add` declares them on a command, `given`
 * reads them back from its options by API name (undefined where not given), `shown` prints the
 * limits of an answer (`monthly_messages 100, storage_bytes none`).
 */
function limitOptions<K extends string>(limits: Record<K, string>) {
  const names = Object.keys(limits) as K[];
  // commander's name of the option: camelCase.
  const optionOf = (name: K) => name.replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
  return {
    add: (command: Command) => names.reduce((declared, name) => declared.option(`--${name.replaceAll("_", "-")} <n|none>`, limits[name], limit), command),
    given: (options: Record<string, number | "none" | undefined>) => Object.fromEntries(names.map((name) => [name, limitValue(options[optionOf(name)])])) as Record<K, number | null | undefined>,
    shown: (values: Record<K, number | null>) => names.map((name) => `${name} ${shown(values[name])}`).join(", "),
  };
}

const ORGANISATION_LIMITS = limitOptions({
  monthly_messages: "messages per calendar month over every project (organisation limits)",
  storage_bytes: "bytes stored over every project (organisation limits)",
});

const PROJECT_LIMITS = limitOptions({
  ingest_ceiling: "messages accepted per billing period",
  monthly_messages: "messages per calendar month before reads answer quota_exceeded",
  rate_limit_read: "read requests per second per key (none: the server's default)",
  rate_limit_write: "write requests per second per key (none: the server's default)",
});

/** A failed admin call: printed as `code: reason` on stderr by the entry point. */
export class AdminCallError extends Error {}

type Outcome = { data?: unknown; error?: unknown };

async function show(outcome: Promise<Outcome>, json: boolean, human: (data: any) => string): Promise<void> {
  const { data, error } = await outcome;
  if (error !== undefined) {
    const envelope = (error as { error?: { code?: string; reason?: string } }).error;
    throw new AdminCallError(`${envelope?.code ?? "error"}: ${envelope?.reason ?? JSON.stringify(error)}`);
  }
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human(data)}\n`);
}

/**
 * `mailstop admin …`: one subcommand per admin route (docs/operator.md "The admin API"),
 * talking to MAILSTOP_PUBLIC_URL with MAILSTOP_ADMIN_TOKEN.
 */
export function adminCommand(loadConfig: () => Config): Command {
  const client = (): AdminClient => {
    const config = loadConfig();
    if (config.adminToken === null) throw new AdminCallError("MAILSTOP_ADMIN_TOKEN is not set: the admin API needs it (and so does the server).");
    return createAdminClient({ baseUrl: config.http.publicUrl, adminToken: config.adminToken });
  };
  const admin = new Command("admin").description("operator commands: provision organisations, projects and credentials");
  const jsonOption = () => new Option("--json", "print the response as JSON and nothing else");

  admin
    .command("bootstrap")
    .description("create an organisation, project, API key and SMTP credential in one call")
    .option("--project-key <key>", "the project key used in inbox addresses")
    .option("--scopes <a,b>", "scopes of the key (default: every scope)", list)
    .addOption(new Option("--environment <env>", "key environment").choices(["test", "live"]))
    .addOption(new Option("--region <region>", "project region").choices(["us", "eu"]))
    .addOption(jsonOption())
    .action((o) =>
      show(
        client().POST("/admin/v1/bootstrap", {
          body: { project_key: o.projectKey, scopes: o.scopes, environment: o.environment, region: o.region },
        }),
        o.json === true,
        (d) =>
          [
            `project ${d.project_key} (${d.project_id}) in organisation ${d.organisation_id}`,
            `API key ${d.api_key_id}: ${d.api_key}`,
            `SMTP ${d.smtp.host}:${d.smtp.port} user ${d.smtp.username} password ${d.smtp.password}`,
            "The key and password are shown once and stored only as SHA-256 hashes.",
          ].join("\n"),
      ),
    );

  admin
    .command("create-organisation")
    .requiredOption("--name <name>")
    .option("--organisation-limits", "enforce organisation plan limits")
    .addOption(jsonOption())
    .action((o) =>
      show(client().POST("/admin/v1/organisations", { body: { name: o.name, organisation_limits: o.organisationLimits === true } }), o.json === true, (d) => `organisation ${d.id} (${d.name})`),
    );

  ORGANISATION_LIMITS.add(admin.command("update-organisation <id>").option("--suspended <bool>", "true or false", bool).option("--organisation-limits <bool>", "true or false", bool))
    .addOption(jsonOption())
    .action((id: string, o) => {
      const limits = ORGANISATION_LIMITS.given(o);
      return show(
        client().PATCH("/admin/v1/organisations/{id}", {
          params: { path: { id } },
          body: { suspended: o.suspended, organisation_limits: o.organisationLimits, ...(Object.values(limits).some((v) => v !== undefined) ? { limits } : {}) },
        }),
        o.json === true,
        (d) => `organisation ${d.id}: suspended ${d.suspended}, organisation limits ${d.organisation_limits}, ${ORGANISATION_LIMITS.shown(d.limits)}`,
      );
    });

  admin
    .command("create-project")
    .requiredOption("--organisation-id <id>")
    .option("--key <key>")
    .addOption(new Option("--region <region>").choices(["us", "eu"]))
    .addOption(jsonOption())
    .action((o) =>
      show(client().POST("/admin/v1/projects", { body: { organisation_id: o.organisationId, key: o.key, region: o.region } }), o.json === true, (d) => `project ${d.key} (${d.id})`),
    );

  PROJECT_LIMITS.add(admin.command("update-project <id>").option("--max-concurrent-waits <n>", "blocking waits in flight per project", int))
    .addOption(jsonOption())
    .action((id: string, o) =>
      show(
        client().PATCH("/admin/v1/projects/{id}", { params: { path: { id } }, body: { limits: { max_concurrent_waits: o.maxConcurrentWaits, ...PROJECT_LIMITS.given(o) } } }),
        o.json === true,
        (d) => `project ${d.id}: max_concurrent_waits ${d.limits.max_concurrent_waits}, ${PROJECT_LIMITS.shown(d.limits)}`,
      ),
    );

  admin
    .command("create-api-key <project-id>")
    .option("--scopes <a,b>", "scopes (default: every scope)", list)
    .addOption(new Option("--environment <env>").choices(["test", "live"]))
    .option("--expires-at <iso>", "expiry instant (ISO 8601)")
    .addOption(jsonOption())
    .action((projectId: string, o) =>
      show(
        client().POST("/admin/v1/projects/{id}/api-keys", {
          params: { path: { id: projectId } },
          body: { scopes: o.scopes, environment: o.environment, expires_at: o.expiresAt },
        }),
        o.json === true,
        (d) => `API key ${d.id}: ${d.key}`,
      ),
    );

  admin
    .command("revoke-api-key <id>")
    .addOption(jsonOption())
    .action((id: string, o) => show(client().DELETE("/admin/v1/api-keys/{id}", { params: { path: { id } } }), o.json === true, (d) => `revoked ${d.id}`));

  admin
    .command("create-smtp-credential <project-id>")
    .addOption(jsonOption())
    .action((projectId: string, o) =>
      show(
        client().POST("/admin/v1/projects/{id}/smtp-credentials", { params: { path: { id: projectId } } }),
        o.json === true,
        (d) => `SMTP user ${d.username} password ${d.password}`,
      ),
    );

  admin
    .command("block-recipient <address>")
    .addOption(jsonOption())
    .action((address: string, o) => show(client().POST("/admin/v1/blocked-recipients", { body: { address } }), o.json === true, (d) => `blocked ${d.address}`));

  return admin;
}
