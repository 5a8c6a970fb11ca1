import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger } from "@mailstop/logging";
import { ARTICLE_REFRESH_MS, ArticleLibrary, BUNDLED_ARTICLES_DIR } from "./article-library";

const article = (title: string, publishedAt: string, extra = "", body = `About ${title}.`) =>
  `---\ntitle: ${title}\nsummary: The summary of ${title}.\npublished_at: ${publishedAt}\n${extra}---\n${body}\n`;

/** A library over a temp directory, with a clock the test moves and the log lines it wrote. */
function harness() {
  const dir = mkdtempSync(join(tmpdir(), "mailstop-articles-"));
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  let now = Date.parse("2026-11-25T10:00:00Z");
  return {
    dir,
    write: (file: string, text: string) => writeFileSync(join(dir, file), text),
    open: (options: { dir?: string } = {}) => ArticleLibrary.open({ dir: options.dir ?? dir, logger, now: () => now }),
    /** Moves the library's clock past the refresh interval: the next request looks again. */
    pastRefresh: () => {
      now += ARTICLE_REFRESH_MS;
    },
    advance: (ms: number) => {
      now += ms;
    },
    warnings: () => lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe("ArticleLibrary", () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.cleanup());

  it("lists published articles newest first (then by slug), without drafts or their bodies", async () => {
    h.write("older.md", article("Older", "2026-01-10"));
    h.write("newest.md", article("Newest", "2026-03-01T09:00:00Z"));
    h.write("same-day-b.md", article("Same day B", "2026-02-01"));
    h.write("same-day-a.md", article("Same day A", "2026-02-01"));
    h.write("held-back.md", article("Held back", "2026-12-01", "draft: true\n"));
    h.write("notes.txt", "not an article");
    const library = h.open();

    expect(await library.list()).toEqual([
      { slug: "newest", title: "Newest", summary: "The summary of Newest.", published_at: "2026-03-01T09:00:00.000Z" },
      { slug: "same-day-a", title: "Same day A", summary: "The summary of Same day A.", published_at: "2026-02-01T00:00:00.000Z" },
      { slug: "same-day-b", title: "Same day B", summary: "The summary of Same day B.", published_at: "2026-02-01T00:00:00.000Z" },
      { slug: "older", title: "Older", summary: "The summary of Older.", published_at: "2026-01-10T00:00:00.000Z" },
    ]);
    expect(h.warnings()).toEqual([]);
  });

  it("reads its directory on the first request, not when it opens", async () => {
    const library = h.open();
    h.write("after-open.md", article("After open", "2026-01-10"));
    h.write("broken.md", "---\ntitle: Broken\n---\n");
    expect(h.warnings()).toEqual([]);
    expect((await library.list()).map((a) => a.slug)).toEqual(["after-open"]);
    expect(h.warnings()).toEqual([expect.objectContaining({ file: join(h.dir, "broken.md") })]);
  });

  it("gives one article with its rendered HTML; a draft's slug and an unknown one give null", async () => {
    h.write("guide.md", article("Guide", "2026-01-10", "", "## Step one\n\nDo **this**."));
    h.write("held-back.md", article("Held back", "2026-01-11", "draft: true\n"));
    const library = h.open();

    expect(await library.get("guide")).toEqual({
      slug: "guide",
      title: "Guide",
      summary: "The summary of Guide.",
      published_at: "2026-01-10T00:00:00.000Z",
      html: "<h2>Step one</h2>\n<p>Do <strong>this</strong>.</p>\n",
    });
    expect(await library.get("held-back")).toBeNull();
    expect(await library.get("nope")).toBeNull();
    expect(await library.get("../guide")).toBeNull();
  });

  it("skips an invalid file with one warning naming it and why, and serves the others", async () => {
    h.write("good.md", article("Good", "2026-01-10"));
    h.write("no-title.md", "---\nsummary: s\npublished_at: 2026-01-10\n---\nBody\n");
    h.write("Bad_Name.md", article("Bad name", "2026-01-10"));
    const library = h.open();

    expect((await library.list()).map((a) => a.slug)).toEqual(["good"]);
    expect(await library.get("no-title")).toBeNull();
    const warnings = h.warnings();
    expect(warnings).toHaveLength(2);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: join(h.dir, "no-title.md"), problems: [expect.stringContaining("title")], msg: "article skipped: it cannot be loaded" }),
        expect.objectContaining({ file: join(h.dir, "Bad_Name.md"), problems: [expect.stringContaining("must be a slug")] }),
      ]),
    );

    // Looking again does not warn again about files that did not change.
    h.pastRefresh();
    expect((await library.list()).map((a) => a.slug)).toEqual(["good"]);
    expect(h.warnings()).toHaveLength(2);
  });

  it("reads nothing again before the refresh interval, then picks up edits, new, removed, fixed and broken files", async () => {
    h.write("edited.md", article("Before", "2026-01-10"));
    h.write("removed.md", article("Removed", "2026-01-09"));
    h.write("to-draft.md", article("To draft", "2026-01-08"));
    h.write("to-fix.md", "---\ntitle: Broken\n---\n");
    h.write("to-break.md", article("To break", "2026-01-07"));
    const library = h.open();
    expect((await library.list()).map((a) => a.slug)).toEqual(["edited", "removed", "to-draft", "to-break"]);

    h.write("edited.md", article("After the edit", "2026-01-10", "", "New body."));
    h.write("added.md", article("Added", "2026-01-11"));
    unlinkSync(join(h.dir, "removed.md"));
    h.write("to-draft.md", article("To draft", "2026-01-08", "draft: true\n"));
    h.write("to-fix.md", article("Fixed", "2026-01-06"));
    h.write("to-break.md", "---\ntitle: To break\nsummary: s\npublished_at: not a date\n---\n");

    // Within the interval nothing is read: the library serves what it loaded.
    h.advance(ARTICLE_REFRESH_MS - 1);
    expect((await library.list()).map((a) => a.title)).toEqual(["Before", "Removed", "To draft", "To break"]);

    h.advance(1);
    expect((await library.list()).map((a) => a.title)).toEqual(["Added", "After the edit", "Fixed"]);
    expect((await library.get("edited"))?.html).toBe("<p>New body.</p>\n");
    expect(await library.get("removed")).toBeNull();
    expect(await library.get("to-draft")).toBeNull();
    expect(await library.get("to-break")).toBeNull();
    expect(h.warnings().map((w) => w.file)).toEqual([join(h.dir, "to-fix.md"), join(h.dir, "to-break.md")]);
  });

  it("serves no articles from a missing directory, warning once, and picks the directory up once it exists", async () => {
    const missing = join(h.dir, "later");
    const library = h.open({ dir: missing });
    expect(await library.list()).toEqual([]);
    h.pastRefresh();
    expect(await library.list()).toEqual([]);
    expect(h.warnings()).toEqual([expect.objectContaining({ dir: missing, msg: "content directory unreadable; serving the articles loaded before" })]);

    mkdirSync(missing);
    writeFileSync(join(missing, "arrived.md"), article("Arrived", "2026-01-10"));
    h.pastRefresh();
    expect((await library.list()).map((a) => a.slug)).toEqual(["arrived"]);
  });

  it("keeps serving what it loaded while the directory is unreadable", async () => {
    const dir = join(h.dir, "content");
    mkdirSync(dir);
    writeFileSync(join(dir, "kept.md"), article("Kept", "2026-01-10"));
    const library = h.open({ dir });
    expect((await library.list()).map((a) => a.slug)).toEqual(["kept"]);
    rmSync(dir, { recursive: true });
    h.pastRefresh();
    expect((await library.list()).map((a) => a.slug)).toEqual(["kept"]);
  });

  it("shares one look between requests that arrive together", async () => {
    h.write("one.md", article("One", "2026-01-10"));
    const library = h.open();
    await library.list();
    h.write("two.md", article("Two", "2026-01-11"));
    h.pastRefresh();
    const lists = await Promise.all([library.list(), library.list(), library.get("two")]);
    expect(lists[0]).toEqual(lists[1]);
    expect(lists[2]?.slug).toBe("two");
  });
});

describe("the bundled articles", () => {
  it("all load without a warning, published, each with a title, a summary and a body", async () => {
    const h = harness();
    try {
      const library = h.open({ dir: BUNDLED_ARTICLES_DIR });
      const listed = await library.list();
      expect(listed.map((a) => a.slug).sort()).toEqual(["test-with-a-custom-domain", "wait-for-a-sign-up-email-in-playwright"]);
      expect(h.warnings()).toEqual([]);
      for (const summary of listed) {
        const full = await library.get(summary.slug);
        expect(full?.html.length).toBeGreaterThan(1000);
      }
    } finally {
      h.cleanup();
    }
  });
});
