import { checkHtmlSupport } from "./html-support";

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

  it("reads only the head of a huge hostile part, in bounded time", () => {
    const hostile = `<style>${"a{position:fixed;display:flex}".repeat(50_000)}</style>` + "<div style='position:absolute'>".repeat(100_000);
    const started = performance.now();
    const check = checkHtmlSupport(hostile, CLIENTS);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(check?.status).toBe("warnings");
  });
});
