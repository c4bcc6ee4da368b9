#!/usr/bin/env bash
# Golden tests for `sluice check-config`: each tests/golden/cases/NAME.conf
# is checked from its own directory (so that messages carry stable relative
# names), and so is each tests/golden/dirs/NAME/sluice.conf (with a gres.conf
# beside it; expected files dirs/NAME/expected.out and .err).  NAME.out is the expected stdout (exit 0), its absence means exit 1;
# NAME.err is the expected stderr (absent: none).  Valid cases must also
# round-trip: their canonical print, checked again, prints the same.  Two
# inputs too ugly to commit (a 1 MB line, binary garbage) are generated.
# sluice import-slurm's cases are in tests/golden/import/ (run_import
# below).  One TAP line per case.  UPDATE=1 rewrites the expected files
# instead.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${SLUICE_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SLUICE=$BUILD/bin/sluice
TMP=$(mktemp -d /tmp/sluice-golden.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0

# check_output NAME WHAT EXPECTED ACTUAL: compare, print a diff on mismatch.
check_output() {
    if [ -e "$3" ]; then
        diff -u "$3" "$4" >"$TMP/diff" 2>&1 && return 0
    else
        [ -s "$4" ] || return 0
        { echo "unexpected $2:"; cat "$4"; } >"$TMP/diff"
    fi
    echo "# $1: $2 differs"
    sed 's/^/#   /' "$TMP/diff" | head -40
    return 1
}

# round_trip NAME: the canonical print in $TMP/out parses to itself.
round_trip() {
    local rt=$TMP/rt
    rm -rf "$rt" && mkdir -p "$rt"
    grep -v -e '^#' -e '^$' "$TMP/out" >"$rt/canonical.conf"
    (cd "$rt" && "$SLUICE" check-config -f canonical.conf \
        >"$rt/out" 2>"$rt/err")
    local rc=$?
    grep -v -e '^#' -e '^$' "$rt/out" >"$rt/again.conf"
    if [ $rc -ne 0 ] || ! cmp -s "$rt/canonical.conf" "$rt/again.conf"; then
        echo "# $1: round trip failed (exit $rc)"
        sed 's/^/#   /' "$rt/err" | head -10
        diff -u "$rt/canonical.conf" "$rt/again.conf" | sed 's/^/#   /' |
            head -30
        return 1
    fi
}

# run_case DIR FILE NAME EXPECTED_PREFIX
run_case() {
    local dir=$1 file=$2 name=$3 exp=$4 rc want ok=1
    n=$((n + 1))
    (cd "$dir" && "$SLUICE" check-config -f "$file" \
        >"$TMP/out" 2>"$TMP/err")
    rc=$?
    if [ "${UPDATE:-0}" = 1 ]; then
        if [ $rc -eq 0 ]; then cp "$TMP/out" "$exp.out"; else rm -f "$exp.out"; fi
        if [ -s "$TMP/err" ]; then cp "$TMP/err" "$exp.err"; else rm -f "$exp.err"; fi
    fi
    want=1
    [ -e "$exp.out" ] && want=0
    if [ $rc -ne $want ]; then
        echo "# $name: exit $rc, expected $want"
        sed 's/^/#   /' "$TMP/err" | head -10
        ok=0
    fi
    check_output "$name" stdout "$exp.out" "$TMP/out" || ok=0
    check_output "$name" stderr "$exp.err" "$TMP/err" || ok=0
    if [ $want -eq 1 ] && [ "$(grep -c 'error:' "$TMP/err")" -lt 1 ]; then
        echo "# $name: no error line"
        ok=0
    fi
    [ $ok -eq 1 ] && [ $rc -eq 0 ] && { round_trip "$name" || ok=0; }
    if [ $ok -eq 1 ]; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        failed=$((failed + 1))
    fi
}

# sluice import-slurm: tests/golden/import/NAME/ holds Slurm's files
# (slurm.conf and what it Includes, gres.conf, cgroup.conf, sacctmgr.dump)
# and NAME/expected/ what the import must print (report.out, also its
# import-report.txt) and write (sluice.conf, gres.conf, cgroup.conf,
# accounting.sh; absent: not written); exit 0 unless the report ends in
# errors.  The configuration written is then a check-config case of its
# own (expected/check.out and check.err, round trip included).
run_import() {
    local src=$1 name=$2 exp=$1/expected w=$TMP/import/$2 rc want f ok=1
    local acct=()
    n=$((n + 1))
    rm -rf "$w" && mkdir -p "$w/in" "$exp"
    find "$src" -maxdepth 1 -type f -exec cp {} "$w/in/" \;
    [ -f "$w/in/sacctmgr.dump" ] && acct=(--accounting in/sacctmgr.dump)
    (cd "$w" && "$SLUICE" import-slurm --dir in -o out "${acct[@]}" \
        >report.out 2>report.err)
    rc=$?
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$w/report.out" "$exp/report.out"
        for f in sluice.conf gres.conf cgroup.conf accounting.sh; do
            rm -f "$exp/$f"
            [ -f "$w/out/$f" ] && cp "$w/out/$f" "$exp/$f"
        done
    fi
    want=0
    grep -q '^import-slurm: .*: errors (above)' "$exp/report.out" && want=1
    if [ $rc -ne $want ]; then
        echo "# import $name: exit $rc, expected $want"
        ok=0
    fi
    check_output "import $name" stdout "$exp/report.out" "$w/report.out" || ok=0
    check_output "import $name" stderr /nonexistent "$w/report.err" || ok=0
    check_output "import $name" import-report.txt "$w/report.out" \
        "$w/out/import-report.txt" || ok=0
    for f in sluice.conf gres.conf cgroup.conf accounting.sh; do
        if [ -f "$exp/$f" ]; then
            check_output "import $name" "$f" "$exp/$f" "$w/out/$f" || ok=0
        elif [ -f "$w/out/$f" ]; then
            echo "# import $name: $f written, none expected"
            ok=0
        fi
    done
    if [ $ok -eq 1 ]; then
        echo "ok $n - import $name"
    else
        echo "not ok $n - import $name"
        failed=$((failed + 1))
    fi
    run_case "$w/out" sluice.conf "import $name: check-config" "$exp/check"
}

# Generated inputs, with their expected messages.
gen_cases() {
    local g=$TMP/gen
    mkdir -p "$g"
    {
        printf 'ClusterName=c\nSlurmctldHost=ctl\nNodeName=n1 Features='
        head -c 1048576 /dev/zero | tr '\0' 'a'
        printf '\n'
    } >"$g/long_line.conf"
    echo "long_line.conf:3: error: line is longer than 65536 bytes" \
        >"$g/long_line.err"
    printf 'ClusterName=c\n\000\377\376garbage\001\nNodeName=n1\n' \
        >"$g/binary.conf"
    echo "binary.conf:2:1: error: binary data (byte 0x00); is this a text file?" \
        >"$g/binary.err"
    printf 'ClusterName=c\nSlurmctldHost=ctl\nNodeName=n\377\n' \
        >"$g/bad_utf8.conf"
    echo "bad_utf8.conf:3:11: error: binary data (byte 0xff); is this a text file?" \
        >"$g/bad_utf8.err"
}

[ -x "$SLUICE" ] || { echo "not ok 1 - $SLUICE not built"; exit 1; }
for conf in tests/golden/cases/*.conf; do
    name=$(basename "$conf" .conf)
    run_case tests/golden/cases "$name.conf" "$name" \
        "$ROOT/tests/golden/cases/$name"
done
# Directories with a gres.conf beside their sluice.conf.
for dir in tests/golden/dirs/*/; do
    name=$(basename "$dir")
    run_case "$dir" sluice.conf "$name" "$ROOT/${dir}expected"
done
run_case tests/golden seed.conf seed "$ROOT/tests/golden/seed"
run_case etc quant-cluster.conf quant-cluster \
    "$ROOT/tests/golden/quant-cluster"
for dir in tests/golden/import/*/; do
    run_import "$ROOT/${dir%/}" "$(basename "$dir")"
done
gen_cases
UPDATE=0
for conf in "$TMP"/gen/*.conf; do
    name=$(basename "$conf" .conf)
    run_case "$TMP/gen" "$name.conf" "$name" "$TMP/gen/$name"
done
echo "1..$n"
[ $failed -eq 0 ]
