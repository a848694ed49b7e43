#!/bin/bash
# Every non-static name starts with its file's name, so that a call site
# says where to look.  For server/<folder>/<file>.c a defined global
# function or variable must be <file> or <folder>_<file>, alone or followed
# by "_..." (api_gpus_list in server/api/gpus.c, catalog_gpu_index in
# server/catalog/catalog.c); for server/<file>.c it must be <file> or
# <file>_... .  The one name the C runtime asks for, main, is allowed in
# server/main.c.  Names that start with "__" are the compiler's own (the
# sanitizers add some) and are skipped, as are generated sources (the
# embedded migrations and prices, named after the header that declares
# them) and objects whose source is no longer under server/.
#
# It reads the object files of a build (nm), so it checks what the compiler
# made non-static, not what the text looks like.  It prints each name that
# breaks the rule with its file, then the count, and fails when there is one.
#   scripts/check_names.sh [build-dir]        (default: build/dev of this repo)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build/dev"}

# Each server object once (a source built into two targets gives two).
mapfile -t objects < <(find "$build" -path '*/server/*.c.o' -print | sort)
if [ "${#objects[@]}" -eq 0 ]; then
        echo "no server objects under $build: build first" >&2
        exit 2
fi

# "source name" for every defined global symbol, the source being the
# object's path from server/ on, less ".o".
report=$(for obj in "${objects[@]}"; do
                src=${obj##*/server/}
                src=${src%.o}
                # An object left behind by a source since moved or deleted.
                [ -f "$root/server/$src" ] || continue
                nm -g --defined-only "$obj" | awk -v src="$src" 'NF == 3 { print src, $3 }'
        done | sort -u |
        awk '{
                src = $1; name = $2
                # Reserved to the implementation (C11 7.1.3): what the
                # compiler adds itself, e.g. AddressSanitizer'"'"'s __odr_asan.*
                if (substr(name, 1, 2) == "__")
                        next
                n = split(src, part, "/")
                file = part[n]; sub(/\.c$/, "", file)
                ok = (name == file || index(name, file "_") == 1)
                if (n == 2) {
                        pre = part[1] "_" file
                        ok = ok || name == pre || index(name, pre "_") == 1
                }
                if (src == "main.c" && name == "main")
                        ok = 1
                if (!ok)
                        printf "  server/%-32s %s\n", src, name
        }')

if [ -n "$report" ]; then
        count=$(wc -l <<<"$report")
        echo "non-static names that do not start with their file's name:"
        echo "$report"
        echo "$count name(s) break the rule"
        exit 1
fi
echo "every non-static name in ${#objects[@]} server objects starts with its file's name"
