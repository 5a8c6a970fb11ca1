#!/bin/sh
# As the upstream image's: `redis-server …` runs as the redis user in /data, reachable from the
# other containers (protected mode off: the network is the compose project's own).
set -eu
if [ "$1" = redis-server ]; then
  chown -R redis:redis /data
  exec setpriv --reuid=redis --regid=redis --init-groups "$@" --protected-mode no
fi
exec "$@"
