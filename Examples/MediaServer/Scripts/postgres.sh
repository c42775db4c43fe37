#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the media server's tests and fault scripts, from
# Debian's packages (installed when missing, apt-get update first).
#
#   bash Examples/MediaServer/Scripts/postgres.sh start [DIR] [PORT]   # prints the database URL
#   bash Examples/MediaServer/Scripts/postgres.sh stop [DIR]
#   bash Examples/MediaServer/Scripts/postgres.sh restart [DIR]        # fast stop, then start again
#
# DIR (default $TMPDIR/media-server-postgres) holds the cluster, made with initdb on first start;
# PORT defaults to 55432. The server listens on 127.0.0.1 only, trusts connections from it (no
# password: a test database, never a production one), and has a database named media_server. Run
# as root, the cluster belongs to the postgres user (PostgreSQL refuses to run as root).
set -euo pipefail

command="${1:-start}"
dir="${2:-${TMPDIR:-/tmp}/media-server-postgres}"
port="${3:-55432}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"   # the Avocet repository
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  bash "$here/scripts/install-deps.sh" postgresql >&2
fi
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  if [ ! -f "$dir/PG_VERSION" ]; then
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null
  fi
  if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'media_server'" postgres | grep -q 1; then
    "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres media_server
  fi
  echo "postgres://postgres@127.0.0.1:$port/media_server?sslmode=disable"
}

stop() {
  if [ -f "$dir/PG_VERSION" ]; then
    as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

case "$command" in
  start) start ;;
  stop) stop ;;
  restart)
    port="$(grep -o -- '"-p" "[0-9]*"' "$dir/postmaster.opts" | tr -dc 0-9)"   # the port it ran on
    stop
    start ;;
  *) echo "usage: $0 start|stop|restart [DIR] [PORT]" >&2; exit 2 ;;
esac
