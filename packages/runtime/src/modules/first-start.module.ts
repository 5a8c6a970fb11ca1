import { bootstrapFirstStart, describeFirstStart } from "@mailstop/api";
import { type RuntimeContext, type ServiceModule, requireDb } from "../module";

/** Monolithic target only: on an empty database creates the `local` project and prints its credentials once, or says why it did not. */
export function firstStartModule(context: RuntimeContext): ServiceModule {
  const db = requireDb(context);
  return {
    name: "first-start",
    async start() {
      const outcome = await bootstrapFirstStart(db, context.config);
      const text = describeFirstStart(outcome, context.config);
      if (text !== null) context.print(text);
      if (outcome.kind === "created") {
        context.logger.info({ project_id: outcome.project.project_id, api_key_id: outcome.project.api_key_id }, "first start: created project local");
      }
    },
    stop: async () => undefined,
    ready: async () => true,
  };
}
