import type { SpentLimit } from "@mailstop/core";

/** Who is calling, established once per request from the API key. */
export interface AuthContext {
  key: { id: string; environment: "test" | "live"; expiresAt: Date | null };
  scopes: readonly string[];
  project: {
    id: string;
    key: string;
    region: "us" | "eu";
    maxConcurrentWaits: number;
    /** Requests per second per key, by class; null: the server's default. */
    rateLimits: { read: number | null; write: number | null };
  };
  organisation: { id: string; organisationLimits: boolean };
  /**
   * The limit this project has spent in the period (its own allowance, or with organisation
   * limits its organisation's), read with the key; null when none is. See enforceAllowance.
   */
  spentLimit: SpentLimit | null;
  /** Set when the caller presented a stream token instead of a key: the one inbox it opens. */
  streamToken?: { inbox: { id: string; address: string }; expiresAt: Date };
}
