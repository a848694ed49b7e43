#!/usr/bin/env bash
# scripts/run.sh - the run command: install what is missing, build, and
# serve gpuplan on http://127.0.0.1:8080 until Ctrl-C.
#
# Without DATABASE_URL it keeps a private PostgreSQL cluster in ./data/
# (created on the first run, reused afterwards: data survives), listening
# only on a Unix socket, started here and stopped again on exit.  With
# DATABASE_URL set it uses that database instead.  Migrations are applied
# by the server at start.  Any GPUPLAN_* variable (see `gpuplan --help`)
# is passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

BUILD=${GPUPLAN_BUILD_DIR:-build/release}
PG_DIR=
SERVER_PID=

cleanup() {
        trap - EXIT INT TERM
        if [ -n "$SERVER_PID" ]; then
                kill -TERM "$SERVER_PID" 2>/dev/null || true
                wait "$SERVER_PID" 2>/dev/null || true
        fi
        if [ -n "$PG_DIR" ]; then
                log "stopping PostgreSQL"
                pg_stop "$PG_DIR"
        fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM

ensure_packages
ensure_node

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
        cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" -j"$(nproc)" 2>&1 | grep -vE '^\[ *[0-9]+%\]|^gmake|Consolidate compiler' >&2 || true
[ -x "$BUILD/gpuplan" ] || { log "build failed"; exit 1; }

if [ -z "${DATABASE_URL:-}" ]; then
        PG_DIR=$ROOT/data/pg
        # PostgreSQL runs as the postgres user when we are root; it must be able
        # to enter the checkout (not so under a private /root), and the socket
        # path must fit in sun_path (107 bytes).  Otherwise the cluster lives
        # in /var/lib/gpuplan, one per checkout, and survives there.
        if { [ "$(id -u)" -eq 0 ] && ! su postgres -s /bin/sh -c "test -x '$ROOT'"; } ||
                [ ${#PG_DIR} -gt 80 ]; then
                PG_DIR=/var/lib/gpuplan/$(printf '%s' "$ROOT" | md5sum | cut -c1-12)/pg
                mkdir -p "$(dirname "$PG_DIR")"
                log "keeping the PostgreSQL cluster in $PG_DIR (the postgres user cannot use $ROOT/data)"
        fi
        if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
                log "creating a PostgreSQL cluster in $PG_DIR"
                mkdir -p "$(dirname "$PG_DIR")"
                pg_init "$PG_DIR"
        fi
        # A cluster left running by a killed run: stop it first.
        pg_stop "$PG_DIR"
        # Socket only (no TCP port to collide with another PostgreSQL).
        as_pg "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -l '$PG_DIR/postgres.log' -w -t 60 \
                -o \"-k '$PG_DIR' -c listen_addresses=''\" start >/dev/null" || {
                tail -20 "$PG_DIR/postgres.log" >&2
                exit 1
        }
        if ! psql -X -At -h "$PG_DIR" -U gpuplan -d postgres \
                -c "SELECT 1 FROM pg_database WHERE datname = 'gpuplan'" | grep -q 1; then
                psql -X -q -h "$PG_DIR" -U gpuplan -d postgres -c 'CREATE DATABASE gpuplan'
        fi
        export DATABASE_URL="postgresql:///gpuplan?host=$PG_DIR&user=gpuplan"
fi

export GPUPLAN_LISTEN=${GPUPLAN_LISTEN:-127.0.0.1:8080}
export GPUPLAN_STATIC_DIR=${GPUPLAN_STATIC_DIR:-$ROOT/static}
log "gpuplan on http://$GPUPLAN_LISTEN/ (Ctrl-C stops it)"
"$BUILD/gpuplan" &
SERVER_PID=$!
set +e
wait "$SERVER_PID"
rc=$?
SERVER_PID=
exit "$rc"
