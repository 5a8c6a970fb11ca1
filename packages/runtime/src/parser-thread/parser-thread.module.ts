import { defineModule } from "../module";
import { ParserThread } from "./parser-thread";

/**
 * The monolith's parser on a worker thread (MAILSTOP_PARSER_THREAD, on PostgreSQL and Redis):
 * the same modules as the parser target, with connections of their own, so parsing, storing
 * and announcing take the second core while this thread keeps SMTP and HTTP. planTarget puts
 * it in the parser's place. It needs what the parser needs only to start after it: the
 * database migrated and the secrets key made, which the thread then opens itself.
 */
export const parserThreadModule = defineModule({
  name: "parser-thread",
  needs: ["db", "blobs", "messaging", "secrets"],
  provides: ["parserThread"],
  create({ messaging, config, logger, metrics }) {
    const thread = new ParserThread({ config, logger, metrics });
    return {
      async start() {
        // The queues' depth is read here, where /metrics is served (the thread's gauges would not be).
        metrics.readQueueDepthFrom((queue) => messaging.queue.depth(queue));
        await thread.start();
        return { parserThread: thread };
      },
      stop: () => thread.stop(),
      ready: () => thread.ready(),
    };
  },
});
