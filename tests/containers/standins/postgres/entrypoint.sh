#!/bin/sh
# Stand-in for the official postgres image's entrypoint: the same
# POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB variables and data path.
set -eu
PGDATA=${PGDATA:-/var/lib/postgresql/data}
export PGDATA PATH=/usr/lib/postgresql/15/bin:$PATH
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ "$(id -u)" = 0 ]; then
        mkdir -p "$PGDATA" /run/postgresql
        chown -R postgres:postgres "$PGDATA" /run/postgresql
        chmod 700 "$PGDATA"
        exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
        pw=$(mktemp)
        printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pw"
        initdb -D "$PGDATA" -U "$user" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
        rm -f "$pw"
        echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
        pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        [ "$db" = postgres ] || createdb -U "$user" "$db"
        pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
