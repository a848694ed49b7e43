#!/bin/bash
# lighthouse.sh - Lighthouse accessibility and performance scores of the
# calculator (a benchmark: it prints figures and asserts nothing).
#
#   tests/bench/lighthouse.sh [URL]
#
# Without a URL it starts a throwaway PostgreSQL and a server built in
# build/dev (cmake -S . -B build/dev && cmake --build build/dev), like the
# test script does.  Lighthouse is the pinned npm release 12.2.3, run with
# Debian's /usr/bin/chromium (CHROME_PATH): nothing downloads a browser.
# Scores are 0-100, desktop preset and the default mobile preset.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/lib.sh
LIGHTHOUSE=lighthouse@12.2.3
export CHROME_PATH=/usr/bin/chromium
export PUPPETEER_SKIP_DOWNLOAD=1
URL=${1:-}
TMP=$(mktemp -d)
chmod 755 "$TMP" # the cluster runs as postgres when we are root
SERVER_PID=
cleanup() {
        [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
        [ -z "$URL" ] && PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin} pg_stop "$TMP/pg"
        rm -rf "$TMP"
}
trap cleanup EXIT
if [ -z "$URL" ]; then
        PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
        export PG_BIN
        PG_PORT=$(free_port)
        pg_init "$TMP/pg" && PG_FSYNC=off pg_start "$TMP/pg" "$PG_PORT"
        psql -X -q -d "postgresql://gpuplan@127.0.0.1:$PG_PORT/postgres" -c 'CREATE DATABASE gpuplan' >/dev/null
        PORT=$(free_port)
        node scripts/vendor.mjs >/dev/null
        DATABASE_URL="postgresql://gpuplan@127.0.0.1:$PG_PORT/gpuplan" GPUPLAN_LISTEN="127.0.0.1:$PORT" \
                GPUPLAN_STATIC_DIR="$ROOT/static" GPUPLAN_LOG_LEVEL=warn build/dev/gpuplan >"$TMP/server.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 120); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz" && break; sleep 0.5; done
        URL="http://127.0.0.1:$PORT/#/calculator"
fi
for preset in desktop mobile; do
        extra=()
        [ "$preset" = desktop ] && extra=(--preset=desktop)
        npx --yes "$LIGHTHOUSE" "$URL" --quiet --output=json --output-path="$TMP/$preset.json" \
                --only-categories=accessibility,performance "${extra[@]}" \
                --chrome-flags="--headless=new --no-sandbox --disable-gpu" >/dev/null 2>"$TMP/$preset.log" || {
                cat "$TMP/$preset.log" >&2
                exit 1
        }
        node -e '
const r = require(process.argv[1]);
const s = (k) => Math.round(r.categories[k].score * 100);
const a = r.audits;
console.log(`${process.argv[2]}: accessibility ${s("accessibility")}, performance ${s("performance")}` +
        ` (FCP ${a["first-contentful-paint"].displayValue}, LCP ${a["largest-contentful-paint"].displayValue},` +
        ` TBT ${a["total-blocking-time"].displayValue}, CLS ${a["cumulative-layout-shift"].displayValue})`);
' "$TMP/$preset.json" "$preset"
done
