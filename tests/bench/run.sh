#!/usr/bin/env bash
# tests/bench/run.sh - throughput, latency and memory of gpuplan beside nginx.
#
# Starts a throwaway PostgreSQL, an optimised build of gpuplan (-O2, no sanitizers)
# and nginx, all on loopback, and drives each with wrk (64 keep-alive
# connections, 2 threads):
#
#   baseline   nginx serving a static JSON file: the estimate response itself
#   baseline-gpus  nginx serving the gpus answer as a file (the gpus row's 100%)
#   gpus       GET  /api/v1/gpus
#   estimate   POST /api/v1/estimate   (XLM-R Large pre-training, the article "Hardware Requirements for Training of Language Models",
#                                       batch and sequence varied per request)
#   estimate-fresh  the same with a batch size never used before on every
#              request: each one replays the caching allocator
#   locked     the same estimate load while four clients poll /readyz and a
#              transaction holds schema_migrations locked (readiness blocks
#              on PostgreSQL): blocking handlers must not slow the rest
#   compare    POST /api/v1/compare    (the same workload, whole plan space)
#   page       GET  /                  (index.html)
#
# gpuplan runs with its default configuration (GPUPLAN_THREADS unset).
#
# then keeps the estimate and gpus loads going until the server has answered
# a million requests, sampling its resident memory.  Prints the table and
# writes BENCHMARKS.md (tests/bench/NOTES.md is appended as the analysis).
#
# Environment: GPUPLAN_BENCH_SECONDS (per measurement, default 10),
# GPUPLAN_BENCH_SOAK (requests for the memory soak, default 1000000),
# GPUPLAN_BENCH_OUT (default BENCHMARKS.md; "-" prints only),
# GPUPLAN_BENCH_BUILD (default build/bench), GPUPLAN_BENCH_PG_PORT,
# GPUPLAN_BENCH_PORT, GPUPLAN_BENCH_NGINX_PORT (default: free ports).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

SECONDS_EACH=${GPUPLAN_BENCH_SECONDS:-10}
SOAK=${GPUPLAN_BENCH_SOAK:-1000000}
OUT=${GPUPLAN_BENCH_OUT:-BENCHMARKS.md}
BUILD=${GPUPLAN_BENCH_BUILD:-build/bench}
CONNECTIONS=64
THREADS=2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpuplan-bench.XXXXXX")
chmod 755 "$TMP"
SERVER_PID=
NGINX_PID=

cleanup() {
        trap - EXIT INT TERM
        [ -n "$NGINX_PID" ] && kill -QUIT "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
        [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
        pg_stop "$TMP/pg"
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in wrk nginx curl; do
        command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
                { log "bench: $tool is missing (apt-get install $tool)"; exit 2; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# ---------------------------------------------------------------- build
log "== build ($BUILD, RelWithDebInfo: -O2 -g, no sanitizers)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPLAN_SANITIZE=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target gpuplan >/dev/null

# ---------------------------------------------------------------- PostgreSQL
PG_PORT=${GPUPLAN_BENCH_PG_PORT:-$(free_port)}
log "== PostgreSQL on 127.0.0.1:$PG_PORT"
pg_init "$TMP/pg"
PG_FSYNC=off pg_start "$TMP/pg" "$PG_PORT"
psql -X -q -d "postgresql://gpuplan@127.0.0.1:$PG_PORT/postgres" -c 'CREATE DATABASE gpuplan' >/dev/null
export DATABASE_URL="postgresql://gpuplan@127.0.0.1:$PG_PORT/gpuplan"

# ---------------------------------------------------------------- server
PORT=${GPUPLAN_BENCH_PORT:-$(free_port)}
URL="http://127.0.0.1:$PORT"
log "== gpuplan on $URL"
# The access log stays on (one JSON line per request) but goes nowhere, as
# it would to a log collector that keeps up.
GPUPLAN_LISTEN="127.0.0.1:$PORT" GPUPLAN_STATIC_DIR="$ROOT/static" GPUPLAN_LOG_LEVEL=info \
        "$BUILD/gpuplan" >/dev/null 2>"$TMP/server.err" &
SERVER_PID=$!
for _ in $(seq 1 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz" || true)" = 200 ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/server.err" >&2; exit 1; }
        sleep 0.1
done

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status"; }
hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$SERVER_PID/status"; }
RSS_IDLE=$(rss_kib)

# ---------------------------------------------------------------- requests
# XLM-RoBERTa Large pre-training, batch 16, sequence 128 (the table of the article "Hardware Requirements for Training of Language Models"),
# fp32 AdamW on one GPU; compare searches the whole plan space (no constraints).
WORKLOAD='"workload": {"mode": "pre_train", "batch_size": 16, "sequence_length": 128,
                       "gradient_accumulation": 1, "dataset": {"samples": 1000000, "epochs": 1}},
          "precision": "fp32", "optimizer": "adamw"'
printf '{"model": {"id": "xlm-roberta-large"}, %s, "gpu": "a100-sxm-80gb"}\n' "$WORKLOAD" >"$TMP/estimate.json"
printf '{"model": {"id": "xlm-roberta-large"}, %s}\n' "$WORKLOAD" >"$TMP/compare.json"

# One request each first: the endpoint must answer 200, and the estimate
# answer becomes the baseline file, so nginx serves the same bytes.
probe() { # name method path [body]
        local code
        if [ "$2" = POST ]; then
                code=$(curl -s -o "$TMP/$1.out" -w '%{http_code}' -H 'Content-Type: application/json' \
                        --data-binary @"$4" "$URL$3")
        else
                code=$(curl -s -o "$TMP/$1.out" -w '%{http_code}' "$URL$3")
        fi
        if [ "$code" != 200 ]; then
                log "bench: $2 $3 answered $code: $(head -c 300 "$TMP/$1.out")"
                return 1
        fi
}
AVAILABLE=()
probe gpus GET /api/v1/gpus && AVAILABLE+=(gpus)
probe estimate POST /api/v1/estimate "$TMP/estimate.json" && AVAILABLE+=(estimate)
probe compare POST /api/v1/compare "$TMP/compare.json" && AVAILABLE+=(compare)
probe page GET / && AVAILABLE+=(page)

mkdir -p "$TMP/www"
# The catalog answer as a file too: gpus is compared with nginx serving its bytes.
[ -s "$TMP/gpus.out" ] && cp "$TMP/gpus.out" "$TMP/www/baseline-gpus.json"
if [ -s "$TMP/estimate.out" ] && [[ " ${AVAILABLE[*]} " == *" estimate "* ]]; then
        cp "$TMP/estimate.out" "$TMP/www/baseline.json"
else
        # No estimate answer to copy: a JSON file of a typical answer's size.
        node -e 'const a=[];for(let i=0;a.join().length<12000;i++)a.push({gpu:"gpu-"+i,fits:i%2==0,bytes:i*1e9});console.log(JSON.stringify({fits:a}))' >"$TMP/www/baseline.json"
fi

# ---------------------------------------------------------------- nginx
NGINX_PORT=${GPUPLAN_BENCH_NGINX_PORT:-$(free_port)}
mkdir -p "$TMP/nginx/logs" "$TMP/nginx/tmp"
cat >"$TMP/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $TMP/nginx/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $TMP/nginx/tmp/body;
    proxy_temp_path $TMP/nginx/tmp/proxy;
    fastcgi_temp_path $TMP/nginx/tmp/fastcgi;
    uwsgi_temp_path $TMP/nginx/tmp/uwsgi;
    scgi_temp_path $TMP/nginx/tmp/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location ~ ^/baseline(-gpus)?\.json$ {
            root $TMP/www;
            default_type application/json;
        }
    }
}
CONF
"$NGINX" -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e stderr -g 'daemon off;' 2>"$TMP/nginx/err" &
NGINX_PID=$!
for _ in $(seq 1 100); do
        curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/baseline.json" && break
        sleep 0.1
done

# ---------------------------------------------------------------- wrk
# run_wrk NAME SECONDS URL [BODY]: wrk's report in $TMP/NAME.wrk
run_wrk() {
        local name=$1 secs=$2 url=$3 body=${4:-} script=tests/bench/post.lua
        case $name in estimate* | locked* | soak | mixed*) script=tests/bench/vary.lua ;; esac
        case $name in compare-fresh*) script=tests/bench/unique.lua ;; esac
        case $name in estimate-fresh*) script=tests/bench/fresh.lua ;; esac
        if [ -n "$body" ]; then
                BENCH_BODY=$body wrk -t"$THREADS" -c"$CONNECTIONS" -d"${secs}s" --latency \
                        -s "$script" "$url" >"$TMP/$name.wrk"
        else
                wrk -t"$THREADS" -c"$CONNECTIONS" -d"${secs}s" --latency "$url" >"$TMP/$name.wrk"
        fi
}

# Figures from a wrk report: requests/s, p50 and p99 in ms, requests, errors.
wrk_rps() { awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$1"; }
wrk_ms() { # file percentile
        awk -v p="$2%" '$1 == p {
                v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
                printf "%.2f", v }' "$1"
}
wrk_requests() { awk '/requests in/ {print $1}' "$1"; }
wrk_errors() {
        awk '/Non-2xx or 3xx responses:/ {n += $5}
             /Socket errors:/ {gsub(/,/, ""); n += $4 + $6 + $8 + $10}
             END {print n + 0}' "$1"
}

declare -A WHAT URLS BODIES
WHAT=([baseline]="nginx, static JSON file" [baseline-gpus]="nginx, the gpus answer as a file" [gpus]="GET /api/v1/gpus" [estimate]="POST /api/v1/estimate"
      [estimate-fresh]="estimate, a new batch size (tensor shapes) on every request"
      [locked]="estimate, /readyz blocked on a lock" [compare]="POST /api/v1/compare (a repeated body: the answer cache)"
      [compare-fresh]="POST /api/v1/compare, every body new (a full search each)"
      [mixed]="estimate while 16 clients send fresh compares"
      [page]="GET / (index.html)")
URLS=([baseline]="http://127.0.0.1:$NGINX_PORT/baseline.json"
      [baseline-gpus]="http://127.0.0.1:$NGINX_PORT/baseline-gpus.json" [gpus]="$URL/api/v1/gpus"
      [estimate]="$URL/api/v1/estimate" [estimate-fresh]="$URL/api/v1/estimate" [locked]="$URL/api/v1/estimate"
      [compare]="$URL/api/v1/compare" [compare-fresh]="$URL/api/v1/compare" [mixed]="$URL/api/v1/estimate"
      [page]="$URL/")
BODIES=([estimate]="$TMP/estimate.json" [estimate-fresh]="$TMP/estimate.json" [locked]="$TMP/estimate.json" [compare]="$TMP/compare.json"
        [compare-fresh]="$TMP/compare.json" [mixed]="$TMP/estimate.json")
RUNS=(baseline)
[ -s "$TMP/www/baseline-gpus.json" ] && RUNS+=(baseline-gpus)
for name in "${AVAILABLE[@]}"; do
        RUNS+=("$name")
        [ "$name" = estimate ] && RUNS+=(estimate-fresh locked)
        [ "$name" = compare ] && RUNS+=(compare-fresh mixed)
done
TOTAL_SERVED=0

# While the "locked" run measures estimates, a transaction holds the table
# readiness reads, and four more clients keep asking /readyz: each waits
# for the lock until PostgreSQL's statement timeout (5 s) ends it.
READYZ_PID=
LOCK_PID=
start_blockers() {
        psql -X -q -d "$DATABASE_URL" -c "BEGIN; LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE;
                SELECT pg_sleep($((SECONDS_EACH + 4))); COMMIT;" >/dev/null 2>&1 &
        LOCK_PID=$!
        sleep 0.5
        wrk -t1 -c4 -d"$((SECONDS_EACH + 3))s" --timeout 10s --latency "$URL/readyz" >"$TMP/readyz.wrk" &
        READYZ_PID=$!
        sleep 0.5
}
# While the "mixed" run measures estimates, 16 more clients keep sending
# compares that each need a full search.
COMPARERS_PID=
start_comparers() {
        BENCH_BODY="$TMP/compare.json" wrk -t1 -c16 -d"$((SECONDS_EACH + 3))s" --timeout 10s --latency \
                -s tests/bench/unique.lua "$URL/api/v1/compare" >"$TMP/comparers.wrk" &
        COMPARERS_PID=$!
        sleep 0.5
}
stop_comparers() {
        wait "$COMPARERS_PID" 2>/dev/null || true
}
stop_blockers() {
        wait "$READYZ_PID" 2>/dev/null || true
        wait "$LOCK_PID" 2>/dev/null || true
}

for name in "${RUNS[@]}"; do
        log "== $name: ${WHAT[$name]} (warm-up 2 s, then ${SECONDS_EACH} s)"
        [ "$name" = locked ] && start_blockers
        [ "$name" = mixed ] && start_comparers
        run_wrk "$name-warm" 2 "${URLS[$name]}" "${BODIES[$name]:-}"
        run_wrk "$name" "$SECONDS_EACH" "${URLS[$name]}" "${BODIES[$name]:-}"
        [ "$name" = locked ] && stop_blockers
        [ "$name" = mixed ] && stop_comparers
        if [[ $name != baseline* ]]; then
                TOTAL_SERVED=$((TOTAL_SERVED + $(wrk_requests "$TMP/$name-warm.wrk") + $(wrk_requests "$TMP/$name.wrk")))
        fi
done
BASE_RPS=$(wrk_rps "$TMP/baseline.wrk")
BASE_GPUS_RPS=$BASE_RPS
[ -f "$TMP/baseline-gpus.wrk" ] && BASE_GPUS_RPS=$(wrk_rps "$TMP/baseline-gpus.wrk")
RSS_AFTER_RUNS=$(rss_kib)

# ---------------------------------------------------------------- soak
# Alternate estimate and gpus loads until a million requests, sampling RSS.
SOAK_SAMPLES=()
if [[ " ${AVAILABLE[*]} " == *" estimate "* ]]; then
        SOAK_RUNS=(estimate gpus)
else
        SOAK_RUNS=("${AVAILABLE[@]}")
fi
RSS_SOAK_START=$(rss_kib)
SOAK_DONE=0
i=0
while [ "$SOAK_DONE" -lt "$SOAK" ] && [ ${#SOAK_RUNS[@]} -gt 0 ]; do
        name=${SOAK_RUNS[$((i % ${#SOAK_RUNS[@]}))]}
        run_wrk soak 10 "${URLS[$name]}" "${BODIES[$name]:-}"
        SOAK_DONE=$((SOAK_DONE + $(wrk_requests "$TMP/soak.wrk")))
        SOAK_SAMPLES+=("$SOAK_DONE:$(rss_kib)")
        log "   soak: $SOAK_DONE requests, RSS $(rss_kib) KiB"
        i=$((i + 1))
done
TOTAL_SERVED=$((TOTAL_SERVED + SOAK_DONE))
RSS_END=$(rss_kib)
HWM=$(hwm_kib)

# ---------------------------------------------------------------- report
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
TABLE=$(
        printf '| Run | What | req/s | vs nginx | p50 ms | p99 ms | errors | response bytes |\n'
        printf '|---|---|---:|---:|---:|---:|---:|---:|\n'
        for name in "${RUNS[@]}"; do
                f=$TMP/$name.wrk
                rps=$(wrk_rps "$f")
                base=$BASE_RPS
                [[ $name == *gpus ]] && base=$BASE_GPUS_RPS
                ratio=$(awk -v a="$rps" -v b="$base" 'BEGIN {printf "%.0f%%", 100 * a / b}')
                if [ "$name" = baseline ]; then
                        bytes=$(stat -c %s "$TMP/www/baseline.json")
                elif [ "$name" = baseline-gpus ]; then
                        bytes=$(stat -c %s "$TMP/www/baseline-gpus.json")
                elif [ "$name" = locked ] || [ "$name" = mixed ] || [ "$name" = estimate-fresh ]; then
                        bytes=$(stat -c %s "$TMP/estimate.out")
                elif [ "$name" = compare-fresh ]; then
                        bytes=$(stat -c %s "$TMP/compare.out")
                else
                        bytes=$(stat -c %s "$TMP/$name.out")
                fi
                printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "${WHAT[$name]}" "$rps" "$ratio" \
                        "$(wrk_ms "$f" 50)" "$(wrk_ms "$f" 99)" "$(wrk_errors "$f")" "$bytes"
        done
)
MEMORY=$(
        printf '| Memory (VmRSS of the gpuplan process) | MiB |\n|---|---:|\n'
        printf '| idle, catalog loaded | %s |\n' "$(mib "$RSS_IDLE")"
        printf '| after the measured runs | %s |\n' "$(mib "$RSS_AFTER_RUNS")"
        printf '| soak start | %s |\n' "$(mib "$RSS_SOAK_START")"
        # About ten evenly spaced samples, and always the last.
        n=${#SOAK_SAMPLES[@]}
        step=$(((n + 9) / 10))
        for ((k = 0; k < n; k++)); do
                if [ $((k % step)) -eq $((step - 1)) ] || [ "$k" -eq $((n - 1)) ]; then
                        s=${SOAK_SAMPLES[$k]}
                        printf '| after %s soak requests | %s |\n' "${s%%:*}" "$(mib "${s##*:}")"
                fi
        done
        printf '%s\n' "${SOAK_SAMPLES[@]}" | awk -F: 'NR == 1 || $2 < lo {lo = $2} $2 > hi {hi = $2}
                END {if (NR) printf "| lowest / highest soak sample | %.1f / %.1f |\n", lo / 1024, hi / 1024}'
        printf '| peak (VmHWM) over %s requests | %s |\n' "$TOTAL_SERVED" "$(mib "$HWM")"
)
CPU=$(awk -F: '/model name/ {gsub(/^ +/, "", $2); print $2; exit}' /proc/cpuinfo)
REPORT=$(cat <<MD
# Benchmarks

Generated by \`tests/bench/run.sh\` on $(date -u +%Y-%m-%d): $(nproc) CPUs ($CPU), Linux $(uname -r).
Everything on one machine over loopback: wrk $(wrk --version 2>&1 | awk 'NR == 1 {print $2}'), $THREADS threads,
$CONNECTIONS keep-alive connections, $SECONDS_EACH s per run after a 2 s warm-up; gpuplan is a RelWithDebInfo
build (\`-O2 -g\`, no sanitizers; the symbols are for profiling) with its default configuration (an epoll pool of one
thread per CPU; database and compare handlers on their worker pools), the access log on
(to /dev/null); nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') with \`worker_processes auto\` and no access log. wrk, nginx and
gpuplan share the same CPUs, so every figure includes the load generator's cost.

The baseline file is the estimate response itself ($(stat -c %s "$TMP/www/baseline.json") bytes), so
the baseline and the estimate row move the same bytes; \`baseline-gpus\` is nginx serving the
\`GET /api/v1/gpus\` answer as a file, and the gpus row's \`vs nginx\` is relative to it.

Requests: estimate is XLM-RoBERTa Large pre-training (fp32 AdamW, one A100
80GB; the XLM-RoBERTa pre-training table of the article "Hardware Requirements for Training of Language Models") with batch 1..64 and sequence 16..512 varied request by
request (tests/bench/vary.lua, 512 distinct bodies); \`locked\` repeats it while
a transaction holds schema_migrations locked and four clients poll /readyz
($(awk '/requests in/ {print $1}' "$TMP/readyz.wrk" 2>/dev/null || echo 0) readiness answers, p99 $(wrk_ms "$TMP/readyz.wrk" 99 2>/dev/null) ms);
compare is that article's workload (batch 16, sequence 128) with no constraints
(the whole plan space), the same body every time, so after the first search it
measures the answer cache; \`compare-fresh\` changes the dataset size on every
request (tests/bench/unique.lua), so each one is a full search; \`mixed\`
measures estimates while 16 more clients send such fresh compares
($(awk '/requests in/ {print $1}' "$TMP/comparers.wrk" 2>/dev/null || echo 0) compares answered, p99 $(wrk_ms "$TMP/comparers.wrk" 99 2>/dev/null) ms).
\`estimate-fresh\` sends a batch size no request has used before every time
(tests/bench/fresh.lua), so each estimate replays the caching allocator.
Targets: estimate ≥ 50% and gpus ≥ 80% of the baseline's requests/s, p99 ≤ 10
ms, also while /readyz is blocked (issues 12 and 26); compare p99 ≤ 100 ms at 64
connections, searches bounded to the CPU count so that comparing clients do not
starve estimates (issue 11); fresh compare p99 ≤ 150 ms at 64 connections
(issue 26); RSS under 50 MB and flat.

$TABLE

$MEMORY
MD
)
printf '%s\n' "$REPORT"
if [ "$OUT" != - ]; then
        {
                printf '%s\n' "$REPORT"
                if [ -f tests/bench/NOTES.md ]; then
                        printf '\n'
                        cat tests/bench/NOTES.md
                fi
        } >"$OUT"
        log "wrote $OUT"
fi
