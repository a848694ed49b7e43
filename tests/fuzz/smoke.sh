#!/usr/bin/env bash
# Run every fuzz harness for a short, fixed number of runs:
#   tests/fuzz/smoke.sh [runs]        (default 20000 per harness)
#
# For the test command.  Without clang + libFuzzer it says so and exits 0:
# the seed corpora still run under ctest through the replay executables.
# New inputs go to a temporary directory, never into the repository.
# Exit status: 0, or 1 when a harness found a crash (its input is saved
# under build/fuzz/artifacts/).
set -euo pipefail
. "$(dirname "$0")/common.sh"

runs=${1:-20000}
if ! fuzz_find_clang; then
        echo "fuzz smoke: clang with libFuzzer not found; corpus replay in ctest only"
        exit 0
fi
fuzz_build
mkdir -p "$FUZZ_BUILD/artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in $FUZZ_TARGETS; do
        mkdir -p "$scratch/$t"
        # -seed fixed: the same runs every time, so a failure reproduces.
        if "$FUZZ_BUILD/tests/fuzz/fuzz_$t" -runs="$runs" -seed=1 -timeout=10 -rss_limit_mb=2048 \
                -artifact_prefix="$FUZZ_BUILD/artifacts/$t-" \
                "$scratch/$t" "$FUZZ_SRC/tests/fuzz/corpus/$t" >"$scratch/$t.log" 2>&1; then
                echo "fuzz smoke: $t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$scratch/$t.log")"
        else
                echo "fuzz smoke: $t: FAILED"
                tail -40 "$scratch/$t.log"
                status=1
        fi
done
exit $status
