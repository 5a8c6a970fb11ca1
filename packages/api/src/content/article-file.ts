import Ajv, { type JSONSchemaType } from "ajv";
import addFormats from "ajv-formats";
import matter from "gray-matter";
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";
import { parse as parseYaml } from "yaml";

/** A slug is the file name without `.md`: lower-case words joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 100;

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}

/** One article as loaded from its file: front matter checked, body rendered and sanitised once. */
export interface LoadedArticle {
  slug: string;
  title: string;
  summary: string;
  /** ISO 8601 in UTC (`2026-03-02T00:00:00.000Z` for a bare `2026-03-02`). */
  publishedAt: string;
  draft: boolean;
  html: string;
}

interface FrontMatter {
  title: string;
  summary: string;
  published_at: string;
  draft?: boolean;
}

// Unknown keys are refused, not ignored: a misspelt `draft` (`drafts: true`) would otherwise
// publish an article its author meant to hold back.
const FRONT_MATTER_SCHEMA: JSONSchemaType<FrontMatter> = {
  type: "object",
  additionalProperties: false,
  required: ["title", "summary", "published_at"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    summary: { type: "string", minLength: 1, maxLength: 500 },
    // A date (`2026-03-02`) or a date-time with its offset; the YAML engine below keeps both
    // as strings, so this is where they are checked.
    published_at: { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] },
    draft: { type: "boolean", nullable: true },
  },
};

const ajv = new Ajv({ allErrors: true });
addFormats(ajv, ["date", "date-time"]);
const validateFrontMatter = ajv.compile(FRONT_MATTER_SCHEMA);

/** Front matter is YAML only. */
const refuseEngine = (language: string) => () => {
  throw new Error(`front matter in ${language} is not accepted; write it in YAML`);
};
const MATTER_OPTIONS = {
  engines: {
    // The `yaml` package (YAML 1.2 core schema) rather than gray-matter's js-yaml 3, which turns
    // an unquoted date into a Date object and would let `published_at` dodge the format check.
    yaml: (source: string) => (parseYaml(source) ?? {}) as object,
    // gray-matter evaluates `---js` front matter with eval(): never run code from a content file.
    javascript: refuseEngine("JavaScript"),
    json: refuseEngine("JSON"),
  },
};

// Raw HTML in the Markdown is allowed through to the sanitiser (an article may want a <details>
// or a table with a caption); the sanitiser, not the renderer, is what keeps the output safe.
const markdown = new MarkdownIt({ html: true, linkify: true, typographer: false });
// Bare URLs with a scheme become links; bare names (`qa.acme.com`, `mailstop.test`), which
// articles about domains are full of, stay text.
markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "details", "summary"],
  allowedAttributes: {
    a: ["href", "title"],
    img: ["src", "alt", "title", "width", "height"],
    code: ["class"],
    ol: ["start"],
    th: ["align"],
    td: ["align"],
  },
  // markdown-it marks fenced code with its language; nothing else keeps a class.
  allowedClasses: { code: ["language-*"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
};

/** Renders Markdown to HTML with no scripts, event handlers, styles or `javascript:` URLs. */
export function renderArticleHtml(body: string): string {
  return sanitizeHtml(markdown.render(body), SANITIZE_OPTIONS);
}

/** Why a file was not loaded: logged as a warning by the library, never thrown to a request. */
export class InvalidArticleError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join("; ")}`);
    this.name = "InvalidArticleError";
  }
}

/**
 * Parses one article file (`source` is its text, `file` its name ending in `.md`). Throws
 * {@link InvalidArticleError} listing every problem: a bad slug, missing or malformed front
 * matter, unknown keys.
 */
export function parseArticleFile(file: string, source: string): LoadedArticle {
  const slug = file.replace(/\.md$/, "");
  if (!isValidSlug(slug)) {
    throw new InvalidArticleError(file, [`the file name must be a slug (${SLUG_PATTERN.source}, at most ${SLUG_MAX_LENGTH} characters) followed by .md`]);
  }
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(source, MATTER_OPTIONS);
  } catch (error) {
    throw new InvalidArticleError(file, [`unreadable front matter: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const data: unknown = parsed.data;
  if (!validateFrontMatter(data)) {
    const problems = (validateFrontMatter.errors ?? []).map((e) =>
      e.keyword === "additionalProperties" ? `unknown front matter key "${String(e.params.additionalProperty)}"` : `front matter ${e.instancePath || "/"} ${e.message}`,
    );
    throw new InvalidArticleError(file, problems);
  }
  return {
    slug,
    title: data.title,
    summary: data.summary,
    publishedAt: new Date(data.published_at).toISOString(),
    draft: data.draft ?? false,
    html: renderArticleHtml(parsed.content),
  };
}
