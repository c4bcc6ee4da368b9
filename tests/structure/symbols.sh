#!/usr/bin/env bash
# No global symbol is defined twice among the project's static libraries
# (build/lib/*.a): the unit tests link the controller's and the node
# daemon's libraries together, where a second definition of a name is
# silently ignored, and tools that map calls by name are misled.  TAP.
set -u
BUILD=${1:-${SLUICE_BUILD:-build}}
libs=("$BUILD"/lib/*.a)
echo "1..1"
if [ ! -e "${libs[0]}" ]; then
    echo "not ok - no static library in $BUILD/lib"
    exit 0
fi
# "lib.a[obj.o]: addr T name" for every defined global; BSD letters
# T (text), D (data), B (bss), R (read-only), C (common), V/W (weak).
dups=$(for l in "${libs[@]}"; do
    nm -A -g --defined-only "$l" 2>/dev/null
done | awk 'NF == 3 && $2 ~ /^[TDBRCVW]$/ {
    split($1, a, ":"); where[$3] = where[$3] " " a[1]; n[$3]++ }
    END { for (s in n) if (n[s] > 1) print s ":" where[s] }' | sort)
if [ -n "$dups" ]; then
    echo "not ok - a global symbol is defined in two places"
    echo "$dups" | sed 's/^/#   /'
else
    echo "ok - every global symbol of ${#libs[@]} libraries is defined once"
fi
