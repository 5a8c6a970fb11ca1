// The `fleet` jest project: every server a test starts is the split fleet behind nginx.
process.env.MAILSTOP_TEST_WORLD = "fleet";
