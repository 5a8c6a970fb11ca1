import { bootstrapFirstStart, describeFirstStart } from "@mailstop/api";
import { type RuntimeContext, type ServiceModule, requireDb } from "../module";

/** Monolithic target only: creates the `local` project on an empty database and prints its credentials once. */
export function firstStartModule(context: RuntimeContext): ServiceModule {
  const db = requireDb(context);
  return {
    name: "first-start",
    async start() {
      const project = await bootstrapFirstStart(db, context.config);
      if (project !== null) {
        context.print(describeFirstStart(project, context.config));
        context.logger.info({ project_id: project.project_id, api_key_id: project.api_key_id }, "first start: created project local");
      }
    },
    stop: async () => undefined,
    ready: async () => true,
  };
}
