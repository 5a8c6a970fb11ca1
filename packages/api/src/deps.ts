import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { Bus, JobQueue, WaitSlots } from "@mailstop/messaging";
import type { Metrics } from "@mailstop/metrics";
import { defineOpenRoute, defineRoute } from "@mailstop/http";
import type { AdminOperations, PublicOperations } from "@mailstop/openapi";
import type { SecretBox, TargetGuard } from "@mailstop/webhooks";
import type { ArticleLibrary } from "./content/article-library";

/** What every route of the api and the waiter needs, built once at start-up. */
export interface ServiceDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** The object store; null when the target runs without one (message bodies then answer 503). */
  blobs: BlobStore | null;
  /** Arrivals for the waiter; credential changes announced by the admin routes (docs/decisions.md "The API-key cache"). */
  bus: Bus;
}

/** What the api's routes need besides: webhook secrets are sealed, and their targets checked, here. */
export interface ApiDeps extends ServiceDeps {
  /** `queue` takes the deliveries a route raises, dispatched right after their commit (the relay is the backstop). */
  webhooks: { secrets: SecretBox; targets: TargetGuard; queue: JobQueue };
  /** The published articles of the content routes, loaded at start. */
  articles: ArticleLibrary;
}

/** What the waiter's routes (the blocking wait, the event stream) need besides. */
export interface WaiterDeps extends ServiceDeps {
  slots: WaitSlots;
  /** Aborted when the process begins to shut down: open event streams end so clients reconnect elsewhere. */
  shutdown: AbortSignal;
  /** Told how to count held waits and open streams, read when scraped; none in tests that build the routes alone. */
  metrics?: Metrics;
}

export const publicRoute = defineRoute<PublicOperations>();
/** The event stream: an API key, or a stream token in `?token=`. */
export const streamRoute = defineRoute<PublicOperations>("api-key-or-stream-token");
export const metaRoute = defineOpenRoute<PublicOperations>("none");
export const adminRoute = defineOpenRoute<AdminOperations>("admin");
