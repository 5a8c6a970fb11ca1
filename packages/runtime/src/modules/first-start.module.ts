import { defineModule } from "../module";

/**
 * Monolithic target only: on an empty database creates the `local` project and prints its
 * credentials once, or says why it did not; on a database in use, names the bootstrap settings
 * it could not apply. Provides what it found, for the start's summary.
 */
export const firstStartModule = defineModule({
  name: "first-start",
  needs: ["db"],
  provides: ["firstStart"],
  create: ({ db, config, logger, print }) => ({
    async start() {
      // Required here, not imported: a target loads the services it runs only (see targets.ts).
      const { bootstrapFirstStart, describeFirstStart } = require("@mailstop/api") as typeof import("@mailstop/api");
      const outcome = await bootstrapFirstStart(db, config);
      const text = describeFirstStart(outcome, config);
      if (text !== null) print(text);
      if (outcome.kind === "created") {
        logger.info({ project_id: outcome.project.project_id, api_key_id: outcome.project.api_key_id }, "first start: created project local");
      }
      return { firstStart: outcome };
    },
    stop: async () => undefined,
    ready: async () => true,
  }),
});
