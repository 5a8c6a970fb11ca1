#!/bin/sh
# The image's entrypoint, also on PATH as `mailstop`. With no arguments it serves $TARGET
# (default all); with arguments it runs them as a mailstop command (`serve --target api`,
# `migrate`, `admin bootstrap --json`). exec: node becomes PID 1 and receives SIGTERM itself.
# It runs the compiled bundle the image built (packages/cli/dist) itself, not the binary
# packages/cli/bin/mailstop.cjs, whose check that the bundle matches the sources an image
# never needs; stack traces name the TypeScript sources (its source map).
# --max-semi-space-size=16: serve's Node.js flags (packages/cli/bin/serve-flags.cjs; issue 34),
# given to every command, which a smaller young generation does not slow.
set -eu
if [ "$#" -eq 0 ]; then
  set -- serve --target "${TARGET:-all}"
fi
exec node --enable-source-maps --max-semi-space-size=16 /app/packages/cli/dist/mailstop.cjs "$@"
