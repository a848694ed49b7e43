# Shared by run.sh and smoke.sh: configure and build the libFuzzer
# harnesses with clang in their own build directory.
# Sourced, not run.  Sets FUZZ_BUILD, FUZZ_TARGETS and fuzz_build().

FUZZ_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ_BUILD=${GPUPLAN_FUZZ_BUILD:-$FUZZ_SRC/build/fuzz}
FUZZ_CC=${GPUPLAN_FUZZ_CC:-}

fuzz_find_clang() {
        if [ -z "$FUZZ_CC" ]; then
                for cc in clang-14 clang; do
                        if command -v "$cc" >/dev/null 2>&1; then
                                FUZZ_CC=$cc
                                break
                        fi
                done
        fi
        [ -n "$FUZZ_CC" ] || return 1
        # libFuzzer's runtime ships in libclang-rt-<version>-dev on Debian.
        printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
                "$FUZZ_CC" -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}

# Configure (once) and build every fuzz_<target> executable.  Several
# run.sh may start at once: the build is serialised with a lock file.
fuzz_build() {
        mkdir -p "$FUZZ_BUILD"
        exec 9>"$FUZZ_BUILD/.build.lock"
        flock 9
        fuzz_build_locked
        local rc=$?
        flock -u 9
        return $rc
}

fuzz_build_locked() {
        # Warnings are the gcc build's job; clang's extra ones must not stop fuzzing.
        cmake -S "$FUZZ_SRC" -B "$FUZZ_BUILD" -DCMAKE_C_COMPILER="$FUZZ_CC" \
                -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPLAN_SANITIZE=ON -DGPUPLAN_FUZZ=ON \
                -DGPUPLAN_WERROR=OFF >/dev/null || return 1
        FUZZ_TARGETS=$(sed -n 's/^fuzz_\([a-z_]*\)_corpus$/\1/p' <(ctest --test-dir "$FUZZ_BUILD" -N | awk '/Test *#/ {print $3}'))
        local t targets=()
        for t in $FUZZ_TARGETS; do
                targets+=(--target "fuzz_$t")
        done
        cmake --build "$FUZZ_BUILD" -j"${GPUPLAN_FUZZ_JOBS:-2}" "${targets[@]}" >/dev/null
}
