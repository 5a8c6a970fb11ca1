import { readFile, readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Logger } from "@mailstop/logging";
import type { LoadedArticle } from "./article-file";

/** The articles shipped with mailstop, used when MAILSTOP_CONTENT_DIR is unset. */
export const BUNDLED_ARTICLES_DIR = resolve(__dirname, "../../content/articles");

/** How long one look at the directory is trusted before a request looks again. */
export const ARTICLE_REFRESH_MS = 10_000;

export interface ArticleSummary {
  slug: string;
  title: string;
  summary: string;
  published_at: string;
}

export interface Article extends ArticleSummary {
  html: string;
}

export interface ArticleLibraryOptions {
  dir: string;
  logger: Logger;
  /** Milliseconds since the epoch; tests move it instead of waiting for the refresh interval. */
  now?: () => number;
  refreshMs?: number;
}

/** What a file looked like when it was last read, and what came of it (null: it was invalid). */
interface FileEntry {
  version: string;
  article: LoadedArticle | null;
}

/**
 * The published articles of a content directory. Every file is read, rendered and sanitised
 * on the first request, not per request, and not at start: the Markdown renderer, the
 * sanitiser (with postcss) and the front matter's parsers stay unloaded in a process nobody
 * asks for an article (an idle `pnpm start`; docs/performance.md "What a process loads").
 * After that, a request arriving more than
 * `refreshMs` after the last look lists the directory again and re-reads only the files whose
 * size or times changed, so an operator's edit shows within about ten seconds without a
 * restart, and an idle server touches no file. A file that cannot be loaded (bad name, bad
 * front matter) is skipped with one warning per version of it; nothing here ever fails a
 * request or the start.
 */
export class ArticleLibrary {
  readonly dir: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #refreshMs: number;
  #files = new Map<string, FileEntry>();
  /** Published articles, newest first. */
  #published: LoadedArticle[] = [];
  #lookedAt = Number.NEGATIVE_INFINITY;
  /** The refresh in flight: concurrent requests share it rather than each reading the directory. */
  #refreshing: Promise<void> | null = null;
  /** The last directory problem logged, so a missing directory is reported once, not every look. */
  #directoryProblem: string | null = null;

  private constructor(options: ArticleLibraryOptions) {
    this.dir = options.dir;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#refreshMs = options.refreshMs ?? ARTICLE_REFRESH_MS;
  }

  /** The library of `options.dir`; its files are read on the first request. */
  static open(options: ArticleLibraryOptions): ArticleLibrary {
    return new ArticleLibrary(options);
  }

  /** Published articles, newest first (then by slug), drafts left out. */
  async list(): Promise<ArticleSummary[]> {
    await this.#refreshIfStale();
    return this.#published.map(summaryView);
  }

  /** The published article of `slug`; null for an unknown slug or a draft's. */
  async get(slug: string): Promise<Article | null> {
    await this.#refreshIfStale();
    const article = this.#published.find((a) => a.slug === slug);
    return article === undefined ? null : { ...summaryView(article), html: article.html };
  }

  async #refreshIfStale(): Promise<void> {
    // A look in flight is awaited even though it already stamped the time: a request arriving
    // during it must not be answered from the state it is replacing.
    if (this.#refreshing === null && this.#now() - this.#lookedAt < this.#refreshMs) return;
    await this.#refresh();
  }

  #refresh(): Promise<void> {
    this.#refreshing ??= this.#look().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #look(): Promise<void> {
    // Stamped before reading: a file changed during the look is seen by the next one.
    this.#lookedAt = this.#now();
    let names: string[];
    try {
      const entries = await readdir(this.dir, { withFileTypes: true });
      names = entries.filter((e) => e.name.endsWith(".md") && !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink())).map((e) => e.name);
      this.#directoryProblem = null;
    } catch (error) {
      // Keep serving what was loaded: a directory briefly unreadable (a deploy swapping it)
      // should not empty the list. A directory that never existed serves no articles.
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== this.#directoryProblem) this.#logger.warn({ dir: this.dir, err: error }, "content directory unreadable; serving the articles loaded before");
      this.#directoryProblem = problem;
      return;
    }

    const files = new Map<string, FileEntry>();
    for (const name of names.sort()) {
      const entry = await this.#load(name, this.#files.get(name));
      if (entry !== null) files.set(name, entry);
    }
    this.#files = files;
    this.#published = [...files.values()]
      .map((entry) => entry.article)
      .filter((article): article is LoadedArticle => article !== null && !article.draft)
      // ISO strings in UTC and ASCII slugs both sort by code unit, whatever the server's locale.
      .sort((a, b) => (a.publishedAt === b.publishedAt ? (a.slug < b.slug ? -1 : 1) : a.publishedAt < b.publishedAt ? 1 : -1));
  }

  /**
   * The entry of file `name`: `previous` when the file has not changed since (an invalid file
   * is so warned about once per version of it), null when it is gone.
   */
  async #load(name: string, previous: FileEntry | undefined): Promise<FileEntry | null> {
    const path = join(this.dir, name);
    let version = "unreadable";
    try {
      const info = await stat(path);
      if (!info.isFile()) return null;
      version = `${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (previous?.version === version) return previous;
      const article = articleFiles().parseArticleFile(name, await readFile(path, "utf8"));
      this.#logger.info({ file: path, slug: article.slug, draft: article.draft }, previous === undefined ? "article loaded" : "article reloaded");
      return { version, article };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      const why = error instanceof articleFiles().InvalidArticleError ? { problems: error.problems } : { err: error };
      if (previous?.version !== version) this.#logger.warn({ file: path, ...why }, "article skipped: it cannot be loaded");
      return { version, article: null };
    }
  }
}

/** article-file.ts and the libraries it loads, required on the first look at the directory. */
const articleFiles = () => require("./article-file") as typeof import("./article-file");

function summaryView(article: LoadedArticle): ArticleSummary {
  return { slug: article.slug, title: article.title, summary: article.summary, published_at: article.publishedAt };
}
