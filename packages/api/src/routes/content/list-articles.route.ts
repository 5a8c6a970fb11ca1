import { type ApiDeps, metaRoute } from "../../deps";

/** GET /content/v1/articles: every published article, newest first, without a key. */
export const listArticlesRoute = ({ articles }: ApiDeps) => metaRoute("listArticles", async () => ({ status: 200, body: { data: await articles.list() } }));
