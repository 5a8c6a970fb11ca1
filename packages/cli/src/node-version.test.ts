import { readFileSync } from "node:fs";
import { join } from "node:path";

// bin/node-version.cjs: the version check the `mailstop` binary runs before anything else.
const guard = require("../bin/node-version.cjs") as {
  MINIMUM: { major: number; minor: number };
  unsupported(version: string): string | null;
};

describe("the Node.js version check of the mailstop binary", () => {
  it.each(["v20.20.2", "v18.20.8", "v22.11.0", "v21.7.3"])("turns %s away in one line saying what to install", (version) => {
    const line = guard.unsupported(version);
    expect(line).not.toBeNull();
    expect(line).not.toContain("\n");
    expect(line).toContain(`this is Node.js ${version}`);
    expect(line).toContain("22.12 or newer");
    expect(line).toContain("nvm install 24");
    expect(line).toContain("Docker image");
  });

  it.each(["v22.12.0", "v22.23.3", "v23.0.0", "v24.21.0", "v26.1.0", process.version])("lets %s run", (version) => {
    expect(guard.unsupported(version)).toBeNull();
  });

  it("names the floor the root package.json's engines names", () => {
    const engines = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")).engines.node as string;
    expect(engines).toBe(`>=${guard.MINIMUM.major}.${guard.MINIMUM.minor}`);
  });
});
