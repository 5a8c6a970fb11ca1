import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startJsonLineChild, uniqueTag, useTestServer } from "@mailstop/testkit";

// The package as a plain Node ESM program sees it: built as its `build` script builds it (tsc
// with tsconfig.build.json, then core's capture module compiled in), then imported by name from
// an .mjs file run by `node` with no TypeScript loader, against a real mailstop configured
// through the environment only. Built into a copy of the package in a temporary directory, so
// runs in parallel (both worlds) and the working tree's dist/ are left alone.
const SOURCE = join(__dirname, "..");
let copy: string;

const server = useTestServer({ mail: true });

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "mailstop-sdk-esm-"));
  const build = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", join(SOURCE, "tsconfig.build.json"), "--outDir", join(copy, "dist")], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
  const inline = spawnSync(process.execPath, [join(SOURCE, "bin", "inline-core.mjs"), join(copy, "dist")], { encoding: "utf8" });
  if (inline.status !== 0) throw new Error(`compiling core's capture module failed:\n${inline.stdout}${inline.stderr}`);
  copyFileSync(join(SOURCE, "package.json"), join(copy, "package.json"));
  mkdirSync(join(copy, "test"));
  copyFileSync(join(SOURCE, "test", "consumer.mjs"), join(copy, "test", "consumer.mjs"));
  // The package's own dependencies, as installed.
  symlinkSync(join(SOURCE, "node_modules"), join(copy, "node_modules"), "dir");
}, 120_000);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it("works from plain node on an .mjs file importing the built @mailstop/sdk", async () => {
  const child = startJsonLineChild("the consumer", [join(copy, "test", "consumer.mjs"), uniqueTag("esm")], {
    cwd: copy,
    env: { PATH: process.env.PATH, MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: server.apiKey },
  });
  try {
    const { address, captureTag } = await child.next<{ address: string; captureTag: string }>();
    expect(captureTag).toBe("capture.example.com.john.doe_2bx");
    expect(await child.next()).toEqual({ typed: true, code: "inbox_not_found" });
    await server.send({ to: address, subject: "hello from esm", text: "x" });
    // Ending stdin too: an open pipe would keep the consumer alive after it is done.
    child.process.stdin.end("sent\n");
    expect(await child.next()).toEqual({ subject: "hello from esm", timeoutErrorExported: true });
    expect(await child.exited).toBe(0);
  } finally {
    child.process.kill();
  }
});
