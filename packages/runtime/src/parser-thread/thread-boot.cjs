// The parser thread's entry. A worker thread starts without the main thread's module hooks or
// its source-map setting: beside the compiled binary it is given the compiled thread's bundle
// (packages/cli/dist/parser-thread.cjs) to run; otherwise it registers tsx's require hook
// itself, as the `mailstop` binary does, and runs thread-main.ts.
const [compiled] = process.argv.slice(2);
if (compiled === undefined) {
  require("tsx/cjs");
  require("./thread-main.ts");
} else {
  process.setSourceMapsEnabled(true);
  require(compiled);
}
