// Set by the banner of the compiled bundles (packages/cli/bin/build-mailstop.cjs) to their
// directory; undeclared when the TypeScript runs (tsx, jest).
declare const MAILSTOP_BUNDLE_DIR: string | undefined;

/** The directory of the compiled bundle this code runs from, or null when it runs from the TypeScript sources. */
export const BUNDLE_DIR: string | null = typeof MAILSTOP_BUNDLE_DIR === "string" ? MAILSTOP_BUNDLE_DIR : null;

/** What runs, for the start-up log line: the compiled bundle or the TypeScript sources. */
export const CODE: "compiled" | "typescript" = BUNDLE_DIR === null ? "typescript" : "compiled";
