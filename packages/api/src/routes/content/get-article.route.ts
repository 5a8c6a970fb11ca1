import { MailstopError } from "@mailstop/core";
import { type ApiDeps, metaRoute } from "../../deps";

/** GET /content/v1/articles/{slug}: one published article with its sanitised HTML, without a key. */
export const getArticleRoute = ({ articles }: ApiDeps) =>
  metaRoute("getArticle", async ({ params }) => {
    const article = await articles.get(params.slug);
    // A draft answers like a slug that never existed: its existence is not published either.
    if (article === null) throw new MailstopError("article_not_found", `No published article "${params.slug}".`);
    return { status: 200, body: article };
  });
