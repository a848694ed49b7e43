#!/bin/bash
# The folders under server/ are layers, and includes point one way:
#
#   {core, json} <- models <- catalog <- {db, plan} <- api <- http <- server/*.c (main)
#
# (json: the jansson field readers and text rule every JSON reader shares;
# core stays pure and includes neither.)
# (a <- b: b may include a).  This prints every folder-level edge read from
# the '#include "folder/..."' lines, with how many lines make it, then fails
# on an edge the order above forbids or on a cycle between folders.
#   scripts/check_layers.sh [server-dir]      (default: server/ of this repo)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-"$root/server"}

# What each folder may include besides itself.  server/*.c is "main".
declare -A allowed=(
        [core]=""
        [json]=""
        [models]="core json"
        [catalog]="models core json"
        [db]="catalog models core json"
        [plan]="catalog models core json"
        [api]="db plan catalog models core json"
        [http]="api db plan catalog models core json"
        [main]="http api db plan catalog models core json"
)

# "from to count", one line per folder pair, from every source and header.
edges=$(cd "$src" && grep -rHE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' \
                --include='*.c' --include='*.h' . |
        sed -E 's|^\./([^:]*):[[:space:]]*#[[:space:]]*include[[:space:]]+"([a-z_]+)/.*|\1 \2|' |
        awk '{ n = split($1, p, "/"); from = (n == 1) ? "main" : p[1];
               if (from != $2) count[from " " $2]++ }
             END { for (e in count) print e, count[e] }' | sort)

fail=0
echo "folder-level include edges (from -> to: lines):"
while read -r from to n; do
        [ -n "$from" ] || continue
        verdict=ok
        if [ -z "${allowed[$from]+x}" ]; then
                verdict="FORBIDDEN (unknown folder $from)"
        elif [[ " ${allowed[$from]} " != *" $to "* ]]; then
                verdict=FORBIDDEN
        fi
        [ "$verdict" = ok ] || fail=1
        printf '  %-8s -> %-8s %4s  %s\n' "$from" "$to" "$n" "$verdict"
done <<<"$edges"

# A cycle: repeatedly drop folders that include no remaining folder or
# that no remaining folder includes; what is left when none can be dropped
# lies on a cycle (or between two).
remaining=$(awk '{print $1; print $2}' <<<"$edges" | sort -u)
while :; do
        dropped=
        for f in $remaining; do
                keep=" $(echo $remaining) "
                out=$(awk -v f="$f" -v keep="$keep" \
                        '$1 == f && index(keep, " " $2 " ") { print $2 }' <<<"$edges")
                in=$(awk -v f="$f" -v keep="$keep" \
                        '$2 == f && index(keep, " " $1 " ") { print $1 }' <<<"$edges")
                if [ -z "$out" ] || [ -z "$in" ]; then
                        remaining=$(tr ' ' '\n' <<<"$remaining" | grep -vx "$f" || true)
                        dropped=1
                fi
        done
        [ -n "$dropped" ] || break
done
if [ -n "$remaining" ]; then
        echo "cycle between folders: $(echo $remaining)"
        fail=1
else
        echo "no cycle between folders"
fi
[ "$fail" -eq 0 ] && echo "layers: ok" || echo "layers: FAILED"
exit "$fail"
