#!/bin/sh
# As the upstream image's: a first start initialises $PGDATA with POSTGRES_USER (a superuser
# with POSTGRES_PASSWORD, scram over the network) and creates POSTGRES_DB; then postgres runs as
# the postgres user, listening on every interface.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 0700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}" > /tmp/pwfile
  chown postgres /tmp/pwfile
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then as_postgres createdb -U "$POSTGRES_USER" "$POSTGRES_DB"; fi
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "stand-in postgres: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
if [ "$1" = postgres ]; then
  shift
  exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -c listen_addresses='*' "$@"
fi
exec "$@"
