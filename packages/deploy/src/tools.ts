import { findExecutable } from "./fleet";

/**
 * A describe block that needs a host tool (nginx, docker-compose). Without it the block is
 * skipped and the skip names the tool, except under CI, whose machine must have it (.ci/run
 * installs both).
 */
export function describeWithTool(tool: string, name: string, body: () => void): void {
  if (findExecutable(tool) !== null || process.env.CI) describe(name, body);
  else describe.skip(`${name} [${tool} is not installed]`, body);
}
