import { HTML_CHECK_MAX_BYTES, checkHtmlSupport } from "./html-support";

const CLIENTS = ["gmail.desktop-webmail", "outlook.windows", "outlook.outlook-com", "apple-mail.macos", "apple-mail.ios", "yahoo.desktop-webmail"];

const TEMPLATE = `<!doctype html><html><head><style>
  .row { display: flex; } .badge { position: absolute; top: 0; }
</style></head><body>
  <div class="row" style="background-image: url(https://cdn.example/hero.png)"><span class="badge">New</span></div>
  <div style="position: relative">one</div><div style="position: relative">two</div>
</body></html>`;

const issue = (check: ReturnType<typeof checkHtmlSupport>, title: string, level: "unsupported" | "partial") => check!.issues.find((i) => i.title === title && i.level === level);

describe("HTML support across mail clients (caniemail)", () => {
  it("reports flexbox, <style> in <head>, background images and position for the clients caniemail lists", () => {
    const check = checkHtmlSupport(TEMPLATE, CLIENTS);
    expect(check?.status).toBe("warnings");
    expect(issue(check, "display:flex", "unsupported")).toMatchObject({ feature: "css-display-flex", clients: expect.arrayContaining(["outlook.windows"]) });
    expect(issue(check, "position", "unsupported")).toMatchObject({ clients: expect.arrayContaining(["gmail.desktop-webmail", "outlook.windows"]) });
    expect(issue(check, "position", "unsupported")!.count).toBeGreaterThanOrEqual(3);
    expect(issue(check, "background-image", "unsupported")).toMatchObject({ clients: expect.arrayContaining(["outlook.windows"]) });
    expect(issue(check, "<style> element", "partial")).toMatchObject({ feature: "html-style", clients: expect.arrayContaining(["gmail.desktop-webmail"]) });
    // Only the configured clients are named.
    for (const each of check!.issues) for (const client of each.clients) expect(CLIENTS).toContain(client);
  });

  it("names only the clients asked for", () => {
    const check = checkHtmlSupport(TEMPLATE, ["apple-mail.macos"]);
    expect(issue(check, "display:flex", "unsupported")).toBeUndefined();
    for (const each of check!.issues) expect(each.clients).toEqual(["apple-mail.macos"]);
  });

  it("says ok for plain HTML every client supports, and none without an HTML part", () => {
    expect(checkHtmlSupport("<p>Your code is <b>483920</b></p>", ["apple-mail.macos"])).toEqual({ status: "ok", issues: [] });
    expect(checkHtmlSupport(null, CLIENTS)).toEqual({ status: "none", issues: [] });
  });

  it(`reads only the first ${HTML_CHECK_MAX_BYTES} bytes of a part: what comes after is not reported`, () => {
    const plainHead = "<p>Your code is 483920</p>".repeat(Math.ceil(HTML_CHECK_MAX_BYTES / 26) + 1);
    expect(checkHtmlSupport(`${plainHead}<div style="display:flex">late</div>`, CLIENTS)).toEqual({ status: "ok", issues: [] });
    // A huge hostile part is cut the same way: its issues count what the head holds.
    const rule = "a{position:fixed;display:flex}";
    const hostile = `<style>${rule.repeat(50_000)}</style>` + "<div style='position:absolute'>".repeat(100_000);
    const check = checkHtmlSupport(hostile, CLIENTS);
    expect(check?.status).toBe("warnings");
    expect(issue(check, "display:flex", "unsupported")!.count).toBeLessThanOrEqual(Math.ceil(HTML_CHECK_MAX_BYTES / rule.length));
  });
});
