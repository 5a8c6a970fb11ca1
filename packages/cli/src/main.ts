#!/usr/bin/env node
import { ConfigError } from "@mailstop/config";
import { buildProgram } from "./program";

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const lines = error instanceof ConfigError ? error.lines : [`mailstop: ${error instanceof Error ? error.message : String(error)}`];
    for (const line of lines) process.stderr.write(`${line}\n`);
    process.exit(1);
  });
