import { cleanEnv, str } from "envalid";
import { ConfigError } from "./load-config";
import { origin } from "./validators";

/**
 * What mailstop's client commands (`mailstop mcp`) read: where the API is and the key to call
 * it with. Separate from the server's schema: a server never needs them, a client nothing else.
 */
export const CLIENT_CONFIG = {
  MAILSTOP_API_URL: origin({ default: "http://localhost:8025", desc: "Client commands (`mailstop mcp`): origin of the mailstop API they call." }),
  MAILSTOP_API_KEY: str({ default: undefined, desc: "Client commands (`mailstop mcp`): the API key (is_test_… or is_live_…) they call it with." }),
} as const;

export interface ClientConfig {
  apiUrl: string;
  /** null when unset: the command decides whether it can run without one. */
  apiKey: string | null;
}

/** The client configuration of `env`; a ConfigError lists every invalid variable at once. */
export function loadClientConfig(env: Record<string, string | undefined>): ClientConfig {
  // An empty value counts as unset, as for the server's variables.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const clean = cleanEnv(present, CLIENT_CONFIG, {
    reporter: ({ errors }) => {
      const lines = Object.entries(errors).map(([name, error]) => `invalid configuration: ${name} ${error?.message ?? "is invalid"}`);
      if (lines.length > 0) throw new ConfigError(lines);
    },
  });
  return { apiUrl: clean.MAILSTOP_API_URL, apiKey: clean.MAILSTOP_API_KEY ?? null };
}
