import type { ModuleName } from "../targets";

/** What the parser thread runs: the parser target's modules without its operations listener (the monolith's HTTP listener answers for the process). */
export const PARSER_THREAD_MODULES: readonly ModuleName[] = ["database", "object-store", "messaging", "secrets", "parser"];
