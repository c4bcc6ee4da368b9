#!/usr/bin/env bash
# Test runner for `make check`: runs every unit test binary (cmocka, TAP
# output), every golden case and every end-to-end script, and ends with one
# line "N passed, N failed".  Each part reports TAP lines ("ok ..." /
# "not ok ..."); a part that crashes or prints none counts as one failure.
set -u
BUILD=${SLUICE_BUILD:-build}
export SLUICE_BUILD=$BUILD
cd "$(dirname "$0")/.."
ROOT=$PWD
passed=0
failed=0
failures=()
LOGDIR=$(mktemp -d /tmp/sluice-check.XXXXXX)
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# run_part NAME CMD...: run one part, count its TAP lines.
run_part() {
    local name=$1; shift
    local log="$LOGDIR/$(echo "$name" | tr '/ ' '__').log"
    local start=$SECONDS rc ok nok
    "$@" >"$log" 2>&1 </dev/null
    rc=$?
    ok=$(grep -cE '^ok ' "$log")
    nok=$(grep -cE '^not ok ' "$log")
    if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
        nok=1
        echo "not ok - $name exited with status $rc" >>"$log"
    fi
    if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
        nok=1
        echo "not ok - $name reported no test" >>"$log"
    fi
    passed=$((passed + ok))
    failed=$((failed + nok))
    printf '%-40s %4d passed %4d failed  (%ds)\n' "$name" "$ok" "$nok" \
        $((SECONDS - start))
    if [ "$nok" -ne 0 ]; then
        failures+=("$name")
        # each failure with the diagnostics its test printed under it
        awk '/^not ok / { n = 0; print; show = 1; next }
             show && /^#/ && n < 12 { print; n++; next }
             { show = 0 }' "$log" | head -60 | sed 's/^/    /'
        tail -30 "$log" | sed 's/^/    | /'
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_part "unit/$(basename "$t")" "$t"
done
# The shape of the code: layering (docs/architecture.md) and symbols.
run_part "structure/layers" python3 tests/structure/layers.py . "$BUILD"
run_part "structure/symbols" tests/structure/symbols.sh "$BUILD"
if [ -x tests/golden/run.sh ]; then
    run_part "golden" tests/golden/run.sh
fi
# The man pages from docs/: they render without warnings and name every
# option each command accepts (skipped without pandoc).
run_part "man" python3 tests/man/check.py "$BUILD"

for t in tests/e2e/t*.sh; do
    [ -x "$t" ] || continue
    run_part "e2e/$(basename "$t" .sh)" "$t"
done

echo
if [ "${#failures[@]}" -ne 0 ]; then
    echo "failing parts: ${failures[*]} (logs in $LOGDIR)"
else
    rm -rf "$LOGDIR"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
