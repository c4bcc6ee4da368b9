#!/bin/sh
# Install the Debian packages Sluice needs to build, test, fuzz and
# package; with arguments, just those packages (scripts/deb.sh names
# debian/control's Build-Depends so).  Idempotent and quiet when
# everything is present already.  usage: scripts/deps.sh [PKG...]
set -eu

# snakemake: a real Slurm client for tests/e2e/t99_snakemake.sh (its
# --slurm executor), which skips itself where snakemake is missing.
# The REST API, /metrics and the dashboard are tested with real clients:
# curl, python3-jsonschema (responses against the served OpenAPI
# document), python3-prometheus-client (its text parser), chromium
# (headless, the dashboard) and openssl (a test certificate for TLS).
# iproute2: the netns harness (tests/e2e/netns.sh).
# pandoc makes the man pages from docs/ (make man, and tests/man/check.py,
# which renders them with man-db's man).  make deb and make check-deb
# (tests/deb/) need the Debian packaging tools (dpkg-dev, debhelper,
# lintian), systemd for systemd-analyze verify, and adduser, which the
# controller's package uses to make its user.

PKGS="build-essential pkg-config libevent-dev libjansson-dev libsqlite3-dev
libssl-dev libmunge-dev munge libcmocka-dev clang libclang-rt-14-dev
clang-format sqlite3 util-linux procps iproute2 curl python3 passwd tmux
snakemake openssl python3-jsonschema python3-prometheus-client chromium
pandoc man-db dpkg-dev debhelper lintian systemd adduser"
[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
# The munge package starts a system munged; Sluice's tests run their own.
echo "deps: done"
