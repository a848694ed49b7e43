#!/bin/sh
# Run the engine on every published measurement in tests/data and print
# the error per case, the median and the 90th percentile.
#   tests/accuracy/run.sh [build-dir]      (default: build/accuracy)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build/accuracy"}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_accuracy -j"$(nproc)" >/dev/null
exec "$build/bench_accuracy" "$root/tests/data/measurements.json" "$root/tests/data/catalog_models.json"
