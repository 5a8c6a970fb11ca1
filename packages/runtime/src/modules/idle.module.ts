import type { RuntimeContext, ServiceModule } from "../module";

/**
 * A service that starts and does nothing yet, so every target of the table already runs.
 * TODO(#3): smtp-edge and parser; TODO(#4): waiter.
 */
export function idleModule(name: string) {
  return (context: RuntimeContext): ServiceModule => ({
    name,
    async start() {
      context.logger.info({ module: name }, "module started (no behaviour yet)");
    },
    stop: async () => undefined,
    ready: async () => true,
  });
}
