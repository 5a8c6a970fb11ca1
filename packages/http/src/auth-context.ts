import type { SpentLimit } from "@mailstop/core";
import type { ApiKeyRecord } from "@mailstop/db";

/** Who is calling, established once per request from the API key. */
export interface AuthContext {
  key: { id: string; environment: "test" | "live"; expiresAt: Date | null };
  scopes: readonly string[];
  /** The key's project as its lookup read it (id, key, region, wait and rate limits). */
  project: ApiKeyRecord["project"];
  organisation: { id: string; organisationLimits: boolean };
  /**
   * The limit this project has spent in the period (its own allowance, or with organisation
   * limits its organisation's), read with the key; null when none is. See enforceAllowance.
   */
  spentLimit: SpentLimit | null;
  /** Set when the caller presented a stream token instead of a key: the one inbox it opens. */
  streamToken?: { inbox: { id: string; address: string }; expiresAt: Date };
}
