#!/usr/bin/env bash
# scripts/test.sh - the test command: install what is missing, build with
# AddressSanitizer + UBSan, start a throwaway PostgreSQL and the server on
# free ports, and run every suite:
#
#   unit          cmocka tests under ctest (incl. fuzz corpus replays)
#   fuzz smoke    each libFuzzer harness for a fixed number of runs (clang)
#   integration   node --test tests/integration/ (HTTP against the real server
#                 and database; nginx with deploy/nginx.conf; contract checks
#                 against openapi.yaml)
#   page          node --test tests/page/ (headless Chromium), when present
#   openapi lint  redocly lint openapi.yaml
#   docs links    every relative link in README.md and docs/ names a file here
#   compose       docker-compose config on deploy/docker-compose.yml
#   containers    tests/containers/run.sh: the image built and run, the compose
#                 stack up through nginx (podman; GPUPLAN_SKIP_CONTAINERS=1 skips)
#   shutdown      SIGTERM drains the sanitized server, exit 0, no leak report
#
# Everything it starts is stopped and removed on exit, also on failure or
# Ctrl-C.  Exit status 0 only when every suite passed.  The last line is
# "N passed, N failed" (tests counted individually where the runner says).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

DEB_PACKAGES="nginx chromium docker-compose clang-14 libclang-rt-14-dev"
BUILD=${GPUPLAN_TEST_BUILD:-build/test-sanitize}
START=$(date +%s)
PASSED=0
FAILED=0
FAILED_SUITES=()
SERVER_PID=

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpuplan-test.XXXXXX")
chmod 755 "$TMP"
mkdir -p "$TMP/pids"

cleanup() {
        local pid
        trap - EXIT INT TERM
        [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
        # Processes the node tests started and could not stop (their pid files).
        for pid in $(ls "$TMP/pids" 2>/dev/null); do
                kill -KILL "$pid" 2>/dev/null
        done
        pg_stop "$TMP/pg"
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# count NAME PASSED FAILED
count() {
        PASSED=$((PASSED + $2))
        FAILED=$((FAILED + $3))
        if [ "$3" -gt 0 ]; then
                FAILED_SUITES+=("$1")
                log "== $1: $2 passed, $3 failed"
        else
                log "== $1: $2 passed"
        fi
}

# A suite whose runner only says yes or no counts as one test.
run_step() {
        local name=$1
        shift
        log "== $name"
        if "$@"; then count "$name" 1 0; else count "$name" 0 1; fi
}

# node --test with a TAP copy to count tests.
run_node_tests() {
        local name=$1 dir=$2 f tap pass fail total_pass=0 total_fail=0 rc
        log "== $name: node --test $dir"
        # One node process per file, one file after another: some files stop
        # and start the shared PostgreSQL.  (A loop rather than
        # --test-concurrency=1, which Debian 12's Node 18 does not know.)
        for f in "$dir"/*.test.mjs; do
                [ -e "$f" ] || continue
                tap="$TMP/$name-$(basename "$f").tap"
                node --test --test-reporter=spec --test-reporter-destination=stderr \
                        --test-reporter=tap --test-reporter-destination="$tap" "$f"
                rc=$?
                pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" 2>/dev/null | tail -1)
                fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" 2>/dev/null | tail -1)
                pass=${pass:-0}
                fail=${fail:-0}
                [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
                total_pass=$((total_pass + pass))
                total_fail=$((total_fail + fail))
        done
        count "$name" "$total_pass" "$total_fail"
}

finish() {
        local secs=$(($(date +%s) - START))
        [ ${#FAILED_SUITES[@]} -gt 0 ] && log "failed: ${FAILED_SUITES[*]}"
        log "test command took ${secs} s"
        echo "$PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ]
        exit $?
}

ensure_packages || { log "cannot install packages"; count setup 0 1; finish; }
ensure_node || { log "cannot install node modules"; count setup 0 1; finish; }

# ---------------------------------------------------------------- build
log "== build ($BUILD, ASan + UBSan)"
if ! cmake -S . -B "$BUILD" -DGPUPLAN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null ||
        ! cmake --build "$BUILD" -j"$(nproc)" >"$TMP/build.log" 2>&1; then
        cat "$TMP/build.log" >&2
        count build 0 1
        finish
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# ---------------------------------------------------------------- unit
log "== unit: ctest"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" >"$TMP/ctest.log" 2>&1
unit_rc=$?
cat "$TMP/ctest.log" >&2
unit_total=$(sed -n 's/.* tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)/\2/p' "$TMP/ctest.log")
unit_failed=$(sed -n 's/.* tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)/\1/p' "$TMP/ctest.log")
unit_total=${unit_total:-0}
unit_failed=${unit_failed:-0}
[ "$unit_rc" -ne 0 ] && [ "$unit_failed" -eq 0 ] && unit_failed=1
count unit $((unit_total - unit_failed)) "$unit_failed"

# ---------------------------------------------------------------- fuzz
# Each libFuzzer harness for a short, fixed number of runs (clang build in
# build/fuzz); the seed corpora already ran above through the replay tests.
run_step "fuzz smoke" tests/fuzz/smoke.sh "${GPUPLAN_FUZZ_RUNS:-100000}"

# ---------------------------------------------------------------- database
PG_PORT=$(free_port)
log "== PostgreSQL on 127.0.0.1:$PG_PORT"
if ! pg_init "$TMP/pg" || ! PG_FSYNC=off pg_start "$TMP/pg" "$PG_PORT"; then
        cat "$TMP/pg/postgres.log" >&2 2>/dev/null
        count postgresql 0 1
        finish
fi
psql -X -q -d "postgresql://gpuplan@127.0.0.1:$PG_PORT/postgres" -c 'CREATE DATABASE gpuplan' >/dev/null
export DATABASE_URL="postgresql://gpuplan@127.0.0.1:$PG_PORT/gpuplan"
# Commands the tests use to restart the database under a running server.
export GPUPLAN_PG_DATA="$TMP/pg/data"
export GPUPLAN_PG_CTL="$PG_BIN/pg_ctl"
export GPUPLAN_PG_STOP="cd '$ROOT' && . scripts/lib.sh && pg_stop '$TMP/pg'"
export GPUPLAN_PG_START="cd '$ROOT' && . scripts/lib.sh && PG_FSYNC=off pg_start '$TMP/pg' $PG_PORT"

# ---------------------------------------------------------------- server
SERVER_PORT=$(free_port)
export GPUPLAN_BIN="$ROOT/$BUILD/gpuplan"
export GPUPLAN_TEST_URL="http://127.0.0.1:$SERVER_PORT"
export GPUPLAN_TEST_ADMIN_TOKEN="test-admin-token-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export GPUPLAN_TEST_TMP="$TMP"
export GPUPLAN_TEST_PIDS="$TMP/pids"
# Quote ages are reckoned from the shipped snapshot's newest date, so the
# freshness tests do not start failing 180 days after it.
export GPUPLAN_TODAY="${GPUPLAN_TODAY:-$(awk -F, 'NR > 1 { print $4 }' prices/skypilot/SOURCES.csv | sort | tail -n 1)}"
log "== server on $GPUPLAN_TEST_URL"
GPUPLAN_HUB=off GPUPLAN_LISTEN="127.0.0.1:$SERVER_PORT" GPUPLAN_STATIC_DIR="$ROOT/static" \
        GPUPLAN_ADMIN_TOKEN="$GPUPLAN_TEST_ADMIN_TOKEN" GPUPLAN_LOG_LEVEL=info \
        "$GPUPLAN_BIN" >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
ready=0
for _ in $(seq 1 300); do
        if curl -sf -o /dev/null "$GPUPLAN_TEST_URL/readyz" 2>/dev/null ||
                node -e "fetch('$GPUPLAN_TEST_URL/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; then
                ready=1
                break
        fi
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.2
done
if [ "$ready" -ne 1 ]; then
        log "server did not become ready:"
        tail -50 "$TMP/server.log" >&2
        count server 0 1
        finish
fi

# ---------------------------------------------------------------- suites
run_node_tests integration tests/integration

if ls tests/page/*.test.mjs >/dev/null 2>&1; then
        run_node_tests page tests/page
fi

run_step "openapi lint" npx --no-install redocly lint openapi.yaml --format=summary
run_step "docs links" node scripts/check_doc_links.mjs

run_step "docker-compose config" docker-compose -f deploy/docker-compose.yml config -q

# ---------------------------------------------------------------- containers
# The deployment built and run for real with podman (tests/containers/run.sh):
# the image from deploy/Dockerfile and the whole compose stack.  A quick
# local run can skip it with GPUPLAN_SKIP_CONTAINERS=1.
if [ "${GPUPLAN_SKIP_CONTAINERS:-0}" = 1 ]; then
        log "== containers: skipped (GPUPLAN_SKIP_CONTAINERS=1)"
else
        log "== containers: tests/containers/run.sh"
        tests/containers/run.sh >"$TMP/containers.out"
        rc=$?
        line=$(grep -E '^containers: [0-9]+ passed, [0-9]+ failed$' "$TMP/containers.out" | tail -1)
        c_pass=$(echo "$line" | sed -n 's/^containers: \([0-9]*\) passed.*/\1/p')
        c_fail=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
        c_pass=${c_pass:-0}
        c_fail=${c_fail:-0}
        [ "$rc" -ne 0 ] && [ "$c_fail" -eq 0 ] && c_fail=1
        count containers "$c_pass" "$c_fail"
fi

# The shared server must drain on SIGTERM, exit 0 and report no leak or UB.
shutdown_check() {
        kill -TERM "$SERVER_PID"
        wait "$SERVER_PID"
        local rc=$?
        SERVER_PID=
        if [ "$rc" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$TMP/server.log"; then
                log "server exit status $rc; end of its log:"
                tail -60 "$TMP/server.log" >&2
                return 1
        fi
        grep -q '"msg":"stopped"' "$TMP/server.log"
}
run_step "server shutdown (SIGTERM, sanitizers)" shutdown_check

finish
