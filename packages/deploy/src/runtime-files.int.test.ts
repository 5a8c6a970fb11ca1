import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { REPO_ROOT } from "./generated-files";

// infra/docker/runtime-files.cjs picks what the image ships of node_modules: the packages the
// compiled bundle leaves external and their production dependencies. The image test
// (image.int.test.ts) runs the result; this reads the choice on the repository's own install.
describe("infra/docker/runtime-files.cjs --list", () => {
  const listed = spawnSync(process.execPath, [resolve(REPO_ROOT, "infra/docker/runtime-files.cjs"), REPO_ROOT, "/nonexistent", "--list"], { encoding: "utf8" });
  const folders = listed.stdout.split("\n").filter(Boolean);
  const names = new Set(folders.map((folder) => folder.split("/node_modules/").pop()));

  it("lists the bundle's externals and what they need, from the workspace's install", () => {
    expect({ status: listed.status, stderr: listed.stderr }).toEqual({ status: 0, stderr: "" });
    for (const name of ["@electric-sql/pglite", "kysely", "ioredis", "bullmq", "minio", "mailparser", "smtp-server", "express", "pino", "swagger-ui-dist"]) expect({ name, listed: names.has(name) }).toEqual({ name, listed: true });
    for (const folder of folders) expect(folder).toMatch(/^node_modules\/\.pnpm\//);
  });

  it("leaves out the build's tools and every devDependency", () => {
    for (const name of ["esbuild", "typescript", "tsx", "vite", "jest", "turbo", "s3rver", "@swc/core"]) expect({ name, listed: names.has(name) }).toEqual({ name, listed: false });
  });
});
