#!/bin/sh
# The image's entrypoint, also on PATH as `mailstop`. With no arguments it serves $TARGET
# (default all); with arguments it runs them as a mailstop command (`serve --target api`,
# `migrate`, `admin bootstrap --json`). exec: node becomes PID 1 and receives SIGTERM itself.
set -eu
if [ "$#" -eq 0 ]; then
  set -- serve --target "${TARGET:-all}"
fi
exec node /app/packages/cli/bin/mailstop.cjs "$@"
