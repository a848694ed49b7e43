#!/usr/bin/env bash
# Fuzz one harness for a while:  tests/fuzz/run.sh <target> <seconds> [libFuzzer flags...]
#
# Targets: router, static_path, hf_config, estimate (those whose harness and
# module exist).  Builds the clang + libFuzzer + ASan/UBSan tree in
# build/fuzz (GPUPLAN_FUZZ_BUILD overrides), starts from the seed corpus in
# tests/fuzz/corpus/<target> and keeps what it learns in
# build/fuzz/corpus/<target>, so the repository's seeds stay small.  A crash
# leaves its input in build/fuzz/artifacts/; copy it into
# tests/fuzz/corpus/<target>/ to make it a regression test (ctest replays
# that directory in every build), then fix the bug.
#
# To fold new coverage back into the seeds, minimised:
#   build/fuzz/tests/fuzz/fuzz_<target> -merge=1 tests/fuzz/corpus/<target> build/fuzz/corpus/<target>
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -lt 2 ]; then
        echo "usage: $0 <target> <seconds> [libFuzzer flags...]" >&2
        exit 2
fi
target=$1
seconds=$2
shift 2
if ! fuzz_find_clang; then
        echo "fuzz: clang with libFuzzer not found (apt-get install clang-14 libclang-rt-14-dev)" >&2
        exit 2
fi
fuzz_build
exe=$FUZZ_BUILD/tests/fuzz/fuzz_$target
if [ ! -x "$exe" ]; then
        echo "fuzz: no harness '$target' (have: $FUZZ_TARGETS)" >&2
        exit 2
fi
mkdir -p "$FUZZ_BUILD/corpus/$target" "$FUZZ_BUILD/artifacts"
# detect_leaks stays on: a leak is a finding.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$exe" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$FUZZ_BUILD/artifacts/$target-" "$@" \
        "$FUZZ_BUILD/corpus/$target" "$FUZZ_SRC/tests/fuzz/corpus/$target"
