export { apiHttpContributions } from "./api.routes";
export { waiterHttpContributions } from "./waiter.routes";
export type { ApiDeps } from "./deps";
export { ArticleLibrary, BUNDLED_ARTICLES_DIR } from "./content/article-library";
export { bootstrapFirstStart, describeFirstStart, FIRST_START_PROJECT_KEY, type FirstStart, type IgnoredSetting } from "./first-start";
export { provisionProject, type ProvisionedProject } from "./provisioning/provision-project";
export { mountSignedDownloads } from "./downloads/signed-download.route";
export { deliverWebhookJob, type DeliveryDeps } from "./webhooks/delivery";
export { startWebhookRelay } from "./webhooks/relay";
