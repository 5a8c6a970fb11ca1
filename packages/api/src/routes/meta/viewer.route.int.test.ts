import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VIEWER_CSP } from "@mailstop/viewer";
import express from "express";
import { mountViewer } from "./viewer.route";

/** /ui/ on its own express app, over a directory the test controls (built or not). */
describe("mountViewer", () => {
  let dir: string;
  let listener: Server;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mailstop-viewer-"));
    const app = express();
    mountViewer(app, dir);
    listener = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => listener.once("listening", resolve));
    url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 with how to build the viewer while it is not built, then serves it once built, without a restart", async () => {
    const missing = await fetch(`${url}/ui/`);
    expect(missing.status).toBe(503);
    expect(missing.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await missing.text()).toContain("pnpm --filter @mailstop/viewer build");

    writeFileSync(join(dir, "index.html"), "<!doctype html><title>viewer</title>");
    const built = await fetch(`${url}/ui/`);
    expect(built.status).toBe(200);
    expect(await built.text()).toContain("<title>viewer</title>");
    expect(built.headers.get("content-security-policy")).toBe(VIEWER_CSP);
    expect(built.headers.get("cache-control")).toBe("no-cache");
  });
});
