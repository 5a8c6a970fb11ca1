import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCATIONS_FILE } from "./generated-files";
import { writeStandaloneNginx } from "./nginx-config";
import { describeWithTool } from "./tools";

describeWithTool("nginx", "the generated nginx config", () => {
  let prefix: string;
  beforeEach(() => {
    prefix = mkdtempSync(join(tmpdir(), "mailstop-nginx-t-"));
  });
  afterEach(() => rmSync(prefix, { recursive: true, force: true }));

  it("passes nginx -t inside a prefix directory of its own, with the committed locations file", () => {
    const args = writeStandaloneNginx({
      prefix,
      locations: LOCATIONS_FILE,
      listen: { host: "127.0.0.1", port: 1 },
      upstreams: { api: ["127.0.0.1:2"], waiter: ["127.0.0.1:3", "127.0.0.1:4"] },
    });
    // The arguments that would run it, testing the configuration instead.
    const result = spawnSync("nginx", ["-t", ...args], { encoding: "utf8", timeout: 10_000 });
    expect({ status: result.status, output: result.stderr }).toEqual({ status: 0, output: expect.stringContaining("test is successful") });
    expect(result.stderr).not.toMatch(/\[(warn|emerg|alert)\]/);
  });
});
