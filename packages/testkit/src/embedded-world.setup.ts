// The `embedded` jest project: every server a test starts runs on the monolith's stand-ins.
process.env.MAILSTOP_TEST_WORLD = "embedded";
