#!/bin/bash
# The engine against every published measurement in tests/data:
#   memory  tests/data/measurements.json, offline (bench_accuracy): error per
#           case, median and p90 of |error| per category and overall
#   time    tests/data/throughput.json through GET /api/v1/validation, which
#           needs the GPU catalog: a private PostgreSQL and server are started
#           (or DATABASE_URL / GPUPLAN_URL are used when set)
#   serving tests/data/serving_loadtests.json through POST /api/v1/serving_plan,
#           then tests/data/serving_nim_course.json (summary only)
#   tests/accuracy/run.sh [build-dir]      (default: build/accuracy)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build/accuracy"}
cd "$root"
. scripts/lib.sh
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_accuracy gpuplan -j"$(nproc)" >/dev/null

echo "== memory (tests/data/measurements.json)"
"$build/bench_accuracy" "$root/tests/data/measurements.json" "$root/tests/data/catalog_models.json"

echo
echo "== time (tests/data/throughput.json, GET /api/v1/validation)"
pg_dir= server=
cleanup() {
        [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
        [ -n "$pg_dir" ] && pg_stop "$pg_dir" && rm -rf "$pg_dir"
        return 0
}
trap cleanup EXIT
url=${GPUPLAN_URL:-}
if [ -z "$url" ]; then
        if [ -z "${DATABASE_URL:-}" ]; then
                pg_dir=$(mktemp -d /tmp/gpuplan-accuracy.XXXXXX)
                chmod 755 "$pg_dir"
                pg_init "$pg_dir"
                port=$(free_port)
                pg_start "$pg_dir" "$port"
                export DATABASE_URL="postgresql://gpuplan@127.0.0.1:$port/postgres"
        fi
        listen=$(free_port)
        GPUPLAN_LISTEN="127.0.0.1:$listen" GPUPLAN_LOG_LEVEL=warn "$build/gpuplan" >/dev/null 2>&1 &
        server=$!
        url="http://127.0.0.1:$listen"
        for _ in $(seq 100); do
                curl -sf "$url/readyz" >/dev/null 2>&1 && break
                sleep 0.2
        done
fi
node "$root/tests/accuracy/time.mjs" "$url"

echo
echo "== serving latency under load (tests/data/serving_loadtests.json, POST /api/v1/serving_plan)"
node "$root/tests/accuracy/serving.mjs" "$url"

echo
echo "== serving, NIM runs outside the validation set (tests/data/serving_nim_course.json)"
node "$root/tests/accuracy/serving.mjs" "$url" "$root/tests/data/serving_nim_course.json" --summary
