/** Who is calling, established once per request from the API key. */
export interface AuthContext {
  key: { id: string; environment: "test" | "live"; expiresAt: Date | null };
  scopes: readonly string[];
  project: { id: string; key: string; region: "us" | "eu"; maxConcurrentWaits: number };
  organisation: { id: string; organisationLimits: boolean };
}
