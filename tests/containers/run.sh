#!/usr/bin/env bash
# tests/containers/run.sh - the container deployment, built and run for real.
#
# With podman (runc runtime), buildah, mmdebstrap and docker-compose talking
# to podman's Docker-compatible socket, it:
#   1. makes stand-ins for the public base images when they cannot be pulled
#      (a Debian 12 root bootstrapped by mmdebstrap; Node, PostgreSQL 15 and
#      nginx on it: tests/containers/standins/), under their own names;
#   2. builds the real image from deploy/Dockerfile (its build stage runs the
#      unit tests), records size and build time, and runs it alone: non-root,
#      read-only root file system, HEALTHCHECK healthy, SIGTERM answering a
#      request in flight and exiting 0;
#   3. runs deploy/docker-compose.yml unchanged (base images through its
#      variables): PostgreSQL, two app replicas, nginx on a published port,
#      and checks through nginx /readyz, an estimate, a compare, the page
#      under /gpuplan/, an admin price write visible on both replicas, a
#      replica stopped under load (failed requests counted), a database
#      restart, down and up keeping the volume, and two replicas racing the
#      migrations on an empty database.
#
# Needs root.  Prints figures and "containers: N passed, N failed"; exits 0
# only when every check passed.  Everything it starts is removed on exit;
# the stand-in and app images stay cached in podman's storage.
#
#   DATABASE_URL   a PostgreSQL the single-container run may use (step 2)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

START=$(date +%s)
PASS=0
FAIL=0
PROJECT=gpuplan-ct
STANDIN=localhost/gpuplan-standin
APP_IMAGE=localhost/gpuplan:latest
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuplan-containers.XXXXXX")
SERVICE_PID=
HEALTH_PID=

check() {
        local name=$1
        shift
        if "$@"; then
                PASS=$((PASS + 1))
                log "ok     $name"
        else
                FAIL=$((FAIL + 1))
                log "FAILED $name"
        fi
}

finish() {
        log "containers: suite took $(($(date +%s) - START)) s"
        echo "containers: $PASS passed, $FAIL failed"
        [ "$FAIL" -eq 0 ]
        exit $?
}

compose() {
        docker-compose -p "$PROJECT" -f "$ROOT/deploy/docker-compose.yml" "$@"
}

cleanup() {
        trap - EXIT INT TERM
        [ -n "$HEALTH_PID" ] && kill "$HEALTH_PID" 2>/dev/null
        if [ -S "$WORK/podman.sock" ]; then
                compose down -v >/dev/null 2>&1
        fi
        podman rm -f gpuplan-ct-single >/dev/null 2>&1
        [ -n "$SERVICE_PID" ] && kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null
        rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ]; then
        log "containers: needs root (rootful podman)"
        FAIL=1
        finish
fi
# netavark programs the bridge network with iptables, which Debian's podman
# only recommends (a fresh machine has none: "netavark: No such file").
DEB_PACKAGES="podman runc buildah mmdebstrap docker-compose netavark aardvark-dns iptables" ensure_packages ||
        { log "containers: cannot install podman and friends"; FAIL=1; finish; }

# runc, and no default ulimits: crun's rlimit setup, and raising limits
# above the host's, are refused on machines like ours.
cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$WORK/containers.conf"
BUILD_OPTS=(--runtime runc --format docker --quiet)

# ------------------------------------------------------------ 1. base images
# The public images when they can be pulled; else local stand-ins.
DEBIAN_IMAGE=debian:bookworm-slim
NODE_IMAGE=node:20-bookworm-slim
POSTGRES_IMAGE=postgres:15-bookworm
NGINX_IMAGE=nginx:1.22-bookworm
if ! timeout 60 podman pull -q docker.io/library/debian:bookworm-slim >/dev/null 2>&1; then
        log "== public images cannot be pulled: local stand-ins"
        DEBIAN_IMAGE=$STANDIN/debian:bookworm-slim
        NODE_IMAGE=$STANDIN/node:bookworm
        POSTGRES_IMAGE=$STANDIN/postgres:15
        NGINX_IMAGE=$STANDIN/nginx:1.22
        if ! podman image exists "$DEBIAN_IMAGE"; then
                mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
                mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm \
                        "$WORK/root.tar" "${mirror:-http://deb.debian.org/debian}" &&
                        podman import -q "$WORK/root.tar" "$DEBIAN_IMAGE" >/dev/null
                rm -f "$WORK/root.tar"
        fi
        cp /etc/ssl/certs/ca-certificates.crt tests/containers/standins/node/host-ca.crt
        for s in node:"$NODE_IMAGE" postgres:"$POSTGRES_IMAGE" nginx:"$NGINX_IMAGE"; do
                dir=${s%%:*} image=${s#*:}
                podman image exists "$image" ||
                        buildah bud "${BUILD_OPTS[@]}" --build-arg BASE="$DEBIAN_IMAGE" -t "$image" \
                                -f "tests/containers/standins/$dir/Containerfile" \
                                "tests/containers/standins/$dir" >/dev/null
        done
        rm -f tests/containers/standins/node/host-ca.crt
fi
check "base images present" podman image exists "$DEBIAN_IMAGE"
for image in "$NODE_IMAGE" "$POSTGRES_IMAGE" "$NGINX_IMAGE"; do
        podman image exists "$image" || { log "missing $image"; FAIL=$((FAIL + 1)); }
done
[ "$FAIL" -eq 0 ] || finish

# ------------------------------------------------------------ 2. the image
t0=$(date +%s)
if buildah bud "${BUILD_OPTS[@]}" --ignorefile deploy/Dockerfile.dockerignore \
        --build-arg DEBIAN_IMAGE="$DEBIAN_IMAGE" --build-arg NODE_IMAGE="$NODE_IMAGE" \
        -t "$APP_IMAGE" -f deploy/Dockerfile . >"$WORK/build.log" 2>&1; then
        PASS=$((PASS + 1))
        size=$(podman image inspect "$APP_IMAGE" --format '{{.Size}}')
        log "ok     image built from deploy/Dockerfile in $(($(date +%s) - t0)) s, $((size / 1000000)) MB"
else
        tail -40 "$WORK/build.log" >&2
        FAIL=$((FAIL + 1))
        finish
fi

if [ -n "${DATABASE_URL:-}" ]; then
        port=$(free_port)
        podman run -d --name gpuplan-ct-single --network host --read-only \
                -e DATABASE_URL="$DATABASE_URL" -e GPUPLAN_LISTEN="127.0.0.1:$port" \
                "$APP_IMAGE" >/dev/null
        t0=$(date +%s%N)
        for _ in $(seq 1 200); do
                curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && break
                sleep 0.1
        done
        log "        single container ready after $((($(date +%s%N) - t0) / 1000000)) ms"
        check "runs as uid 10001" test "$(podman exec gpuplan-ct-single id -u)" = 10001
        check "root file system is read-only" \
                bash -c '! podman exec gpuplan-ct-single touch /opt/gpuplan/x 2>/dev/null'
        check "HEALTHCHECK turns healthy" podman healthcheck run gpuplan-ct-single
        # A request whose body is still arriving when SIGTERM comes is answered.
        node -e '
                const net = require("net");
                const body = JSON.stringify({model: {id: "llama-2-7b"}, workload: {mode: "inference"}});
                const s = net.connect(Number(process.argv[1]), "127.0.0.1", () => {
                        s.write(`POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
                        setTimeout(() => s.write(body), 1500);
                });
                s.once("data", (d) => { console.log(String(d).split("\r\n")[0]); s.destroy(); });
                s.on("error", (e) => { console.log(e.message); });
        ' "$port" >"$WORK/inflight.out" &
        inflight=$!
        sleep 0.5
        podman stop -t 15 gpuplan-ct-single >/dev/null 2>&1
        wait "$inflight"
        check "SIGTERM: the request in flight is answered" grep -q '200 OK' "$WORK/inflight.out"
        check "SIGTERM: exit status 0" \
                test "$(podman inspect gpuplan-ct-single --format '{{.State.ExitCode}}')" = 0
        podman rm -f gpuplan-ct-single >/dev/null 2>&1
fi

# ------------------------------------------------------------ 3. the stack
podman system service --time=0 "unix://$WORK/podman.sock" >"$WORK/service.log" 2>&1 &
SERVICE_PID=$!
for _ in $(seq 1 50); do [ -S "$WORK/podman.sock" ] && break; sleep 0.1; done
export DOCKER_HOST="unix://$WORK/podman.sock"
# podman runs HEALTHCHECKs from systemd timers; without systemd, run them here.
(while sleep 2; do
        for c in $(podman ps -q --filter "label=com.docker.compose.project=$PROJECT"); do
                podman healthcheck run "$c" >/dev/null 2>&1
        done
done) &
HEALTH_PID=$!

PORT=$(free_port)
TOKEN="ct-admin-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
export GPUPLAN_PORT=$PORT GPUPLAN_ADMIN_TOKEN=$TOKEN POSTGRES_PASSWORD="ct-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export GPUPLAN_DEBIAN_IMAGE=$DEBIAN_IMAGE GPUPLAN_NODE_IMAGE=$NODE_IMAGE
export GPUPLAN_POSTGRES_IMAGE=$POSTGRES_IMAGE GPUPLAN_NGINX_IMAGE=$NGINX_IMAGE
B="http://127.0.0.1:$PORT"

wait_ready() {
        local url=$1 i
        for i in $(seq 1 ${2:-600}); do
                [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" = 200 ] && return 0
                sleep 0.1
        done
        return 1
}
replica_ip() {
        podman inspect "${PROJECT}_app_$1" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}'
}
price_on() {
        curl -s "http://$(replica_ip "$1"):8080/api/v1/prices?offering=$OFFERING&pricing=on_demand" |
                node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).prices[0].usd_per_hour))'
}
migrations_applied_now() {
        local n=0 c k
        for c in 1 2; do
                k=$(podman logs "${PROJECT}_app_$c" 2>&1 | sed -n 's/.*(\([0-9]*\) of [0-9]* migrations applied now).*/\1/p' | tail -1)
                n=$((n + ${k:-0}))
        done
        echo "$n"
}
psql_db() {
        podman exec "${PROJECT}_db_1" psql -U gpuplan -d gpuplan -tAc "$1"
}

compose down -v >/dev/null 2>&1
t0=$(date +%s%N)
compose up -d --no-build >"$WORK/up.log" 2>&1 || cat "$WORK/up.log" >&2
check "compose up: ready through nginx" wait_ready "$B"
log "        stack ready through nginx after $((($(date +%s%N) - t0) / 1000000)) ms"
files=$(ls migrations/*.sql | wc -l)
check "two replicas racing on an empty database apply each migration once" \
        test "$(migrations_applied_now)" = "$files" -a "$(psql_db 'SELECT count(*) FROM schema_migrations')" = "$files"
check "estimate through nginx" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/v1/estimate" \
        -d '{"model":{"id":"xlm-roberta-large"},"workload":{"mode":"pre_train","batch_size":16,"sequence_length":128}}')" = 200
check "compare through nginx" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/v1/compare" \
        -d '{"model":{"id":"llama-2-7b"},"workload":{"mode":"lora"}}')" = 200
check "the page under /gpuplan/" bash -c "curl -s '$B/gpuplan/' | grep -q '<title>gpuplan'"

OFFERING=$(curl -s "$B/api/v1/prices?pricing=on_demand" |
        node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).prices[0].offering))')
check "admin price write through nginx" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/v1/prices" \
        -H "Authorization: Bearer $TOKEN" \
        -d "{\"offering\":\"$OFFERING\",\"pricing\":\"on_demand\",\"usd_per_hour\":12.345,\"source\":\"container suite\"}")" = 201
sleep 1.5
check "the write is visible on both replicas" \
        test "$(price_on 1)" = 12.345 -a "$(price_on 2)" = 12.345

node tests/containers/load.mjs "$B" 8 >"$WORK/load.json" &
load=$!
sleep 3
podman stop -t 15 "${PROJECT}_app_1" >/dev/null 2>&1
wait "$load"
log "        replica stopped under load: $(cat "$WORK/load.json")"
check "no failed request while a replica stopped" grep -q '"failed":0' "$WORK/load.json"
check "the stopped replica exited 0" \
        test "$(podman inspect "${PROJECT}_app_1" --format '{{.State.ExitCode}}')" = 0
podman start "${PROJECT}_app_1" >/dev/null 2>&1

replicas_ready() {
        local i c
        for i in $(seq 1 300); do
                for c in 1 2; do
                        curl -sf -o /dev/null "http://$(replica_ip $c):8080/readyz" || continue 2
                done
                return 0
        done
        return 1
}
t0=$(date +%s%N)
podman restart "${PROJECT}_db_1" >/dev/null 2>&1
check "replicas recover after a database restart, without a restart of their own" replicas_ready
log "        both replicas ready $((($(date +%s%N) - t0) / 1000000)) ms after the database restart began"
check "a write after the database restart" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/v1/prices" \
        -H "Authorization: Bearer $TOKEN" \
        -d "{\"offering\":\"$OFFERING\",\"pricing\":\"on_demand\",\"usd_per_hour\":12.5,\"source\":\"container suite\"}")" = 201

rows=$(psql_db 'SELECT count(*) FROM prices')
compose down >/dev/null 2>&1
compose up -d --no-build >"$WORK/up2.log" 2>&1 || cat "$WORK/up2.log" >&2
wait_ready "$B"
check "down and up keep the volume: no write lost" \
        test "$(psql_db 'SELECT count(*) FROM prices')" = "$rows" -a "$(price_on 2)" = 12.5
compose down -v >/dev/null 2>&1

finish
