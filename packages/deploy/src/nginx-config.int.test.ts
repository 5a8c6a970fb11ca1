import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCATIONS_FILE } from "./generated-files";
import { renderStandaloneNginx } from "./nginx-config";
import { describeWithTool } from "./tools";

describeWithTool("nginx", "the generated nginx config", () => {
  let prefix: string;
  beforeEach(() => {
    prefix = mkdtempSync(join(tmpdir(), "mailstop-nginx-t-"));
  });
  afterEach(() => rmSync(prefix, { recursive: true, force: true }));

  it("passes nginx -t inside a prefix directory of its own, with the committed locations file", () => {
    const config = join(prefix, "nginx.conf");
    writeFileSync(
      config,
      renderStandaloneNginx({
        prefix,
        locations: LOCATIONS_FILE,
        listen: { host: "127.0.0.1", port: 1 },
        upstreams: { api: ["127.0.0.1:2"], waiter: ["127.0.0.1:3", "127.0.0.1:4"] },
        ...(process.getuid?.() === 0 ? { user: "root" } : {}),
      }),
    );
    const result = spawnSync("nginx", ["-t", "-p", prefix, "-c", config, "-e", join(prefix, "error.log")], { encoding: "utf8", timeout: 10_000 });
    expect({ status: result.status, output: result.stderr }).toEqual({ status: 0, output: expect.stringContaining("test is successful") });
    expect(result.stderr).not.toMatch(/\[(warn|emerg|alert)\]/);
  });
});
