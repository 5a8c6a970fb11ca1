// The parser thread's entry: a worker thread starts without the main thread's module hooks,
// so it registers tsx's require hook itself, as the `mailstop` binary does.
require("tsx/cjs");
require("./thread-main.ts");
