#!/usr/bin/env bash
# scratch.sh ROOT DEBS [SCRIPT]: run by tests/deb/check.sh in mount and
# PID namespaces of their own.  Mounts a copy-on-write overlay of / (its
# changes in a tmpfs that goes with the namespace), the kernel's file
# systems, a fresh /run and /tmp, makes it the root (pivot_root) and runs
# SCRIPT there (default tests/deb/inside.sh) with ROOT and DEBS.  Nothing written there reaches this system.
set -u
ROOT=$1
DEBS=$2
SCRIPT=${3:-$ROOT/tests/deb/inside.sh}
T=$(mktemp -d /tmp/sluice-scratch.XXXXXX)

fail() {
    echo "ok 1 # SKIP $*"
    exit 0
}

mkdir -p "$T/layer" "$T/root"
mount -t tmpfs -o size=4g tmpfs "$T/layer" || fail "cannot mount a tmpfs"
mkdir -p "$T/layer/up" "$T/layer/work"
mount -t overlay overlay \
    -o "lowerdir=/,upperdir=$T/layer/up,workdir=$T/layer/work" "$T/root" ||
    fail "cannot mount an overlay of / (overlayfs)"
R=$T/root
mount --rbind /dev "$R/dev" || fail "cannot bind /dev"
mount --rbind /sys "$R/sys" || fail "cannot bind /sys"
mount -t proc proc "$R/proc" || fail "cannot mount /proc"
mount -t tmpfs -o mode=0755 tmpfs "$R/run" || fail "cannot mount /run"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" || fail "cannot mount /tmp"
# the repository and the packages, where they are (another mount than /
# is not in the overlay)
for d in "$ROOT" "$DEBS"; do
    if ! mountpoint -q "$R$d" && [ -z "$(ls -A "$R$d" 2>/dev/null)" ]; then
        mkdir -p "$R$d" && mount --bind "$d" "$R$d"
    fi
done
# the overlay's own changes, for what dpkg --purge leaves (inside.sh)
mkdir -p "$R/.scratch-upper"
mount --bind "$T/layer/up" "$R/.scratch-upper"
mkdir -p "$R/.old"
cd "$R" || fail "cannot enter the overlay"
pivot_root . .old || fail "pivot_root into the overlay"
umount -l /.old
cd / || exit 1
exec bash "$SCRIPT" "$ROOT" "$DEBS"
