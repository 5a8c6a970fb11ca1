import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expectError, rawRequest, useTestServer } from "@mailstop/testkit";

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

// A content directory of this file's own: the server reads it at start (MAILSTOP_CONTENT_DIR).
const contentDir = mkdtempSync(join(tmpdir(), "mailstop-content-"));
const file = (name: string, frontMatter: string, body: string) => writeFileSync(join(contentDir, name), `---\n${frontMatter}\n---\n${body}\n`);
file("first-article.md", "title: First article\nsummary: The oldest one.\npublished_at: 2026-01-05", "Hello.");
file("newest-article.md", 'title: "Newest: with a colon"\nsummary: The newest one.\npublished_at: 2026-03-01T12:00:00+01:00', "Newest.");
file(
  "hostile-article.md",
  "title: Hostile article\nsummary: Markup that must not survive.\npublished_at: 2026-02-10",
  [
    "## Safe heading",
    "<script>document.cookie</script>",
    '<img src="https://example.com/pic.png" onerror="alert(1)" alt="pic">',
    '<a href="javascript:alert(2)">click me</a> and [a markdown one](javascript:alert(3)) and [a fine one](https://example.com/docs)',
  ].join("\n\n"),
);
file("unfinished.md", "title: Unfinished\nsummary: Not yet.\npublished_at: 2026-04-01\ndraft: true", "Draft body.");
file("broken.md", "title: Broken\npublished_at: someday", "No summary, no date.");

afterAll(() => rmSync(contentDir, { recursive: true, force: true }));

const server = useTestServer({ env: { MAILSTOP_CONTENT_DIR: contentDir }, project: false });

/** No credential of any kind: the content routes are public. */
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(server.url, "GET", path, { headers });

describe("GET /content/v1/articles", () => {
  describe("200", () => {
    it("lists the published articles newest first, without drafts, invalid files or bodies", async () => {
      const { status, json, headers } = await get("/content/v1/articles");
      expect(status).toBe(200);
      expect(headers.get("x-request-id")).toMatch(REQUEST_ID);
      expect(json).toEqual({
        data: [
          { slug: "newest-article", title: "Newest: with a colon", summary: "The newest one.", published_at: "2026-03-01T11:00:00.000Z" },
          { slug: "hostile-article", title: "Hostile article", summary: "Markup that must not survive.", published_at: "2026-02-10T00:00:00.000Z" },
          { slug: "first-article", title: "First article", summary: "The oldest one.", published_at: "2026-01-05T00:00:00.000Z" },
        ],
      });
    });

    it("needs no credential and ignores a bad one", async () => {
      for (const authorization of ["Bearer nonsense", "Bearer is_test_000000000000000000000000", "Basic Zm9vOmJhcg=="]) {
        const { status, json } = await get("/content/v1/articles", { authorization });
        expect({ authorization, status, count: json?.data?.length }).toEqual({ authorization, status: 200, count: 3 });
      }
    });
  });
});

describe("GET /content/v1/articles/{slug}", () => {
  describe("200", () => {
    it("answers the article with its Markdown rendered and sanitised: no script, event handler or javascript: link", async () => {
      const { status, json } = await get("/content/v1/articles/hostile-article", { authorization: "Bearer nonsense" });
      expect(status).toBe(200);
      expect(Object.keys(json).sort()).toEqual(["html", "published_at", "slug", "summary", "title"]);
      expect(json).toMatchObject({ slug: "hostile-article", title: "Hostile article", summary: "Markup that must not survive.", published_at: "2026-02-10T00:00:00.000Z" });
      expect(json.html).toBe(
        [
          "<h2>Safe heading</h2>",
          "",
          '<img src="https://example.com/pic.png" alt="pic" />',
          '<p><a>click me</a> and [a markdown one](javascript:alert(3)) and <a href="https://example.com/docs">a fine one</a></p>',
          "",
        ].join("\n"),
      );
      expect(json.html).not.toMatch(/<script|document\.cookie|onerror|href="javascript:/i);
    });

    it("answers a plain article without a credential", async () => {
      const { status, json } = await get("/content/v1/articles/first-article");
      expect(status).toBe(200);
      expect(json).toEqual({ slug: "first-article", title: "First article", summary: "The oldest one.", published_at: "2026-01-05T00:00:00.000Z", html: "<p>Hello.</p>\n" });
    });
  });

  describe("404", () => {
    it.each([
      ["an unknown slug", "no-such-article"],
      ["a draft's slug", "unfinished"],
      ["an invalid file's slug", "broken"],
      ["a slug outside the grammar", "First_Article"],
      ["a path out of the directory", "..%2Fsecrets"],
    ])("answers %s with article_not_found", async (_what, slug) => {
      const outcome = await get(`/content/v1/articles/${slug}`);
      const error = expectError(outcome, { status: 404, code: "article_not_found", retryable: false });
      expect(error.details).toBeUndefined();
      expect(outcome.headers.get("x-request-id")).toMatch(REQUEST_ID);
    });

    it("answers a draft's slug with article_not_found even with a bad credential", async () => {
      expectError(await get("/content/v1/articles/unfinished", { authorization: "Bearer nonsense" }), { status: 404, code: "article_not_found", retryable: false });
    });
  });
});

describe("the bundled articles (MAILSTOP_CONTENT_DIR unset)", () => {
  const bundled = useTestServer({ project: false });

  it("are served by default, each readable by its slug", async () => {
    const { status, json } = await rawRequest(bundled.url, "GET", "/content/v1/articles");
    expect(status).toBe(200);
    expect(json.data.map((a: { slug: string }) => a.slug).sort()).toEqual(["test-with-a-custom-domain", "wait-for-a-sign-up-email-in-playwright"]);
    for (const { slug, title } of json.data) {
      const article = await rawRequest(bundled.url, "GET", `/content/v1/articles/${slug}`);
      expect(article.status).toBe(200);
      expect(article.json.title).toBe(title);
      expect(article.json.html).toContain("<h2>");
    }
  });
});
