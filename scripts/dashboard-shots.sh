#!/usr/bin/env bash
# The screenshots of docs/dashboard.md: runs the dashboard's end-to-end
# test (tests/e2e/t33_dashboard.sh: the seed's cluster with running,
# pending and preempted jobs of two users) with its screenshots going to
# a scratch directory, and copies the views the page shows to
# docs/img/dashboard-*.png.  Needs root (the test makes the two users,
# zhangsan and lisi by default: DASH_USERS="a b"), Chromium and a build.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
USERS=${DASH_USERS:-zhangsan lisi}
[ "$(id -u)" = 0 ] || { echo "dashboard-shots: run as root (the test makes two users)" >&2; exit 1; }
for u in $USERS; do
    if id "$u" >/dev/null 2>&1; then
        echo "dashboard-shots: user $u exists; name two others with DASH_USERS" >&2
        exit 1
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! T33_SHOTS=$tmp T33_USERS=$USERS tests/e2e/t33_dashboard.sh >"$tmp/t33.log" 2>&1; then
    grep -E '^not ok' "$tmp/t33.log" >&2 || tail -20 "$tmp/t33.log" >&2
    echo "dashboard-shots: the test failed (log above); docs/img unchanged" >&2
    exit 1
fi
mkdir -p docs/img
for v in login cluster queue explain job pending preemptions fairshare; do
    cp "$tmp/$v.png" "docs/img/dashboard-$v.png"
    echo "docs/img/dashboard-$v.png"
done
