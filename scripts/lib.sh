# lib.sh - helpers shared by scripts/run.sh and scripts/test.sh (sourced).
#
# ensure_packages   apt-get install what is missing (apt-get update first, once)
# ensure_node       npm ci when node_modules is missing or older than the lock file
# free_port         print a TCP port nothing listens on
# pg_init DIR       create a PostgreSQL cluster in DIR/data (superuser "gpuplan", trust auth)
# pg_start DIR PORT start it on 127.0.0.1:PORT with its socket in DIR
# pg_stop DIR       stop it (fast: terminates open connections)
#
# PostgreSQL refuses to run as root, so when we are root the cluster is
# owned by and run as the "postgres" system user (created by the
# postgresql package).

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

log() { printf '%s\n' "$*" >&2; }

# Debian packages the service and its tests need (DEB_PACKAGES may add more).
BASE_PACKAGES="build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev libpq-dev
libcmocka-dev zlib1g-dev libcurl4-openssl-dev libcsv-dev postgresql-15 postgresql-client-15"

ensure_packages() {
        local missing=() p
        for p in $BASE_PACKAGES ${DEB_PACKAGES:-}; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
                        missing+=("$p")
        done
        if ! command -v node >/dev/null 2>&1; then
                missing+=(nodejs npm)
        fi
        [ ${#missing[@]} -eq 0 ] && return 0
        log "installing: ${missing[*]}"
        local sudo=
        [ "$(id -u)" -ne 0 ] && sudo=sudo
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
                $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                        "${missing[@]}" >/dev/null
}

ensure_node() {
        # npm ci writes node_modules/.package-lock.json; older than the lock file = stale.
        if [ ! -f node_modules/.package-lock.json ] ||
                [ package-lock.json -nt node_modules/.package-lock.json ]; then
                log "installing node modules (npm ci)"
                npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 || return 1
        fi
        if [ -f scripts/vendor.mjs ]; then
                node scripts/vendor.mjs >/dev/null || return 1
        fi
}

free_port() {
        node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Run a command as the cluster owner: postgres when we are root, else ourselves.
as_pg() {
        if [ "$(id -u)" -eq 0 ]; then
                su postgres -s /bin/bash -c "cd / && $*"
        else
                bash -c "$*"
        fi
}

pg_init() {
        local dir=$1
        mkdir -p "$dir"
        [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
        as_pg "'$PG_BIN/initdb' -D '$dir/data' -U gpuplan -A trust -E UTF8 --locale=C.UTF-8 >'$dir/initdb.log' 2>&1" || {
                cat "$dir/initdb.log" >&2
                return 1
        }
}

pg_start() {
        local dir=$1 port=$2
        # Already running (a test's finally block may start it twice): nothing to do.
        as_pg "'$PG_BIN/pg_ctl' -D '$dir/data' status >/dev/null 2>&1" && return 0
        as_pg "'$PG_BIN/pg_ctl' -D '$dir/data' -l '$dir/postgres.log' -w -t 60 \
                -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=${PG_FSYNC:-on}\" start >/dev/null"
}

pg_stop() {
        local dir=$1
        [ -f "$dir/data/postmaster.pid" ] || return 0
        as_pg "'$PG_BIN/pg_ctl' -D '$dir/data' -m fast -w -t 60 stop >/dev/null" || true
}
