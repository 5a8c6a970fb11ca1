import type { PublicOperations } from "@mailstop/openapi";
import { defineOpenRoute } from "./route";

/**
 * GET /health: served by every HTTP-serving target alike. Reports only that the process is
 * serving; it touches no database or object store, so it stays cheap under any load.
 */
export const healthRoute = (server: { brand: string; region: "us" | "eu" }) =>
  defineOpenRoute<PublicOperations>("none")("getHealth", async () => ({
    status: 200,
    body: { status: "ok", brand: server.brand, region: server.region, time: new Date().toISOString() },
  }));
