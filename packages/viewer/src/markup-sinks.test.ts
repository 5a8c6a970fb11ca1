import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const APP_SOURCES = join(__dirname, "..", "app", "src");

/**
 * The page never parses markup itself (docs/viewer.md "Security"): only DOMPurify does, inside
 * mail-frame.ts, and its output goes only into the sandboxed frame's srcdoc.
 */
describe("the viewer's sources", () => {
  const files = readdirSync(APP_SOURCES).filter((name) => name.endsWith(".ts"));

  it.each(files)("%s uses no HTML sink (innerHTML, outerHTML, insertAdjacentHTML, document.write, DOMParser)", (name) => {
    const source = readFileSync(join(APP_SOURCES, name), "utf8");
    expect(source.match(/\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/g)).toBeNull();
  });

  it("sets srcdoc in one place only, with the sanitised document", () => {
    const uses = files.flatMap((name) => (readFileSync(join(APP_SOURCES, name), "utf8").match(/\.srcdoc\s*=/g) ?? []).map(() => name));
    expect(uses).toEqual(["message-pane.ts"]);
    expect(readFileSync(join(APP_SOURCES, "message-pane.ts"), "utf8")).toMatch(/const \{ srcdoc, remoteImageCount \} = mailDocument\(/);
  });
});
