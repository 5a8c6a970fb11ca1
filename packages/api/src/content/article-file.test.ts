import { InvalidArticleError, isValidSlug, parseArticleFile, renderArticleHtml } from "./article-file";

const article = (frontMatter: string, body = "Body.") => `---\n${frontMatter}\n---\n${body}\n`;

function problemsOf(file: string, source: string): string[] {
  try {
    parseArticleFile(file, source);
  } catch (error) {
    if (error instanceof InvalidArticleError) return error.problems;
    throw error;
  }
  throw new Error(`${file} was accepted`);
}

describe("parseArticleFile", () => {
  it("takes the slug from the file name and the fields from the front matter, a bare date as midnight UTC", () => {
    const loaded = parseArticleFile("first-steps.md", article("title: First steps\nsummary: Where to begin.\npublished_at: 2026-03-02", "# Hello\n\nSome *text*."));
    expect(loaded).toEqual({
      slug: "first-steps",
      title: "First steps",
      summary: "Where to begin.",
      publishedAt: "2026-03-02T00:00:00.000Z",
      draft: false,
      html: "<h1>Hello</h1>\n<p>Some <em>text</em>.</p>\n",
    });
  });

  it("reads a date-time with its offset as UTC, and draft: true", () => {
    const loaded = parseArticleFile("later.md", article("title: Later\nsummary: S.\npublished_at: 2026-03-02T10:30:00+02:00\ndraft: true"));
    expect(loaded.publishedAt).toBe("2026-03-02T08:30:00.000Z");
    expect(loaded.draft).toBe(true);
  });

  it("lists every problem of the front matter at once: missing fields, an unknown key, a date that is not one", () => {
    const problems = problemsOf("bad.md", article("summary: 42\npublished_at: yesterday\ndrafts: true"));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("title"),
        'unknown front matter key "drafts"',
        expect.stringMatching(/\/summary must be string/),
        expect.stringMatching(/\/published_at must match format/),
      ]),
    );
  });

  it("refuses a file without front matter, or with front matter that is not a mapping", () => {
    expect(problemsOf("bare.md", "# Just Markdown\n")).toEqual(expect.arrayContaining([expect.stringContaining("title")]));
    expect(problemsOf("scalar.md", article("just a string"))).toEqual([expect.stringContaining("must be object")]);
  });

  it("refuses front matter that is not valid YAML", () => {
    expect(problemsOf("broken.md", article('title: "unterminated\nsummary: s\npublished_at: 2026-01-01'))).toEqual([expect.stringContaining("unreadable front matter")]);
  });

  it("never evaluates JavaScript front matter (gray-matter's ---js would eval it)", () => {
    const global = globalThis as { articleFrontMatterRan?: boolean };
    const source = '---js\n{ title: (globalThis.articleFrontMatterRan = true, "t"), summary: "s", published_at: "2026-01-01" }\n---\nBody\n';
    expect(problemsOf("code.md", source)).toEqual([expect.stringContaining("not accepted; write it in YAML")]);
    expect(global.articleFrontMatterRan).toBeUndefined();
  });

  it.each(["Capital.md", "under_score.md", "-leading.md", "double--hyphen.md", "trailing-.md", `${"a".repeat(101)}.md`])("refuses the file name %s, which is not a slug", (file) => {
    expect(problemsOf(file, article("title: T\nsummary: S\npublished_at: 2026-01-01"))).toEqual([expect.stringContaining("must be a slug")]);
  });
});

describe("isValidSlug", () => {
  it("accepts lower-case words joined by single hyphens, up to 100 characters", () => {
    for (const slug of ["a", "wait-for-a-sign-up-email-in-playwright", "v2-notes", "a".repeat(100)]) expect(isValidSlug(slug)).toBe(true);
    for (const slug of ["", "A", "a_b", "a--b", "a.b", "../etc", "a".repeat(101)]) expect(isValidSlug(slug)).toBe(false);
  });
});

describe("renderArticleHtml", () => {
  it("removes scripts with their content, event handlers, javascript: URLs, styles and frames", () => {
    const html = renderArticleHtml(
      [
        "<script>alert('x')</script>",
        '<img src="https://example.com/a.png" onerror="alert(1)" alt="a">',
        '<a href="javascript:alert(2)" onclick="alert(3)">raw link</a>',
        "[markdown link](javascript:alert(4))",
        '<a href="JaVaScRiPt:alert(5)">mixed case</a>',
        '<a href="//evil.example/x">protocol-relative</a>',
        '<p style="background:url(javascript:alert(6))">styled</p>',
        "<style>body { display: none }</style>",
        '<iframe src="https://evil.example"></iframe>',
        '<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="d">',
      ].join("\n\n"),
    );
    // No element or attribute that runs code or loads from elsewhere; the refused Markdown link
    // stays as inert text (markdown-it refuses the URL, the sanitiser would too).
    expect(html).not.toMatch(/<script|alert\('x'\)|<style|<iframe|\son\w+=|\sstyle=|(?:href|src)="(?:javascript|data):|evil\.example/i);
    expect(html).toContain("<p>[markdown link](javascript:alert(4))</p>");
    // What was safe in them stays.
    expect(html).toContain('<img src="https://example.com/a.png" alt="a" />');
    expect(html).toContain("raw link");
    expect(html).toContain("styled");
  });

  it("keeps the Markdown's structure: headings, lists, links, tables, code with its language", () => {
    const html = renderArticleHtml(
      ["## Steps", "1. one\n2. two", "[docs](https://example.com/docs) and <mailto:ops@example.com>", "| a | b |\n|---|---|\n| 1 | 2 |", "```ts\nconst x = 1 < 2;\n```"].join("\n\n"),
    );
    for (const part of [
      "<h2>Steps</h2>",
      "<ol>\n<li>one</li>",
      '<a href="https://example.com/docs">docs</a>',
      '<a href="mailto:ops@example.com">mailto:ops@example.com</a>',
      "<td>1</td>",
      '<pre><code class="language-ts">const x = 1 &lt; 2;\n</code></pre>',
    ]) {
      expect(html).toContain(part);
    }
  });

  it("links bare URLs that have a scheme, and leaves bare domain names and addresses as text", () => {
    expect(renderArticleHtml("See https://example.com/docs, then claim qa.acme.com for signup@qa.acme.com.")).toBe(
      '<p>See <a href="https://example.com/docs">https://example.com/docs</a>, then claim qa.acme.com for signup@qa.acme.com.</p>\n',
    );
  });
});
