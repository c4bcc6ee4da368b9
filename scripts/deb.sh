#!/bin/sh
# make deb: the Debian packages sluice-client, sluice-controller and
# sluice-node in build/deb/ (the .debs, .changes and .buildinfo), built
# with dpkg-buildpackage -us -uc -b from a fresh copy of this tree (the
# files git tracks or would track, as a clean clone has them; the whole
# tree but build outputs where it is no git checkout), then checked with
# lintian, which must find no error.
#
# The packaging tools and debian/control's Build-Depends are installed
# with scripts/deps.sh when missing.  usage: scripts/deb.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-build/deb}
case $OUT in /*) ;; *) OUT=$ROOT/$OUT ;; esac

scripts/deps.sh dpkg-dev debhelper lintian
version=$(dpkg-parsechangelog -S Version)
src=$OUT/src/sluice-$version
# this build's files only: OUTDIR/slurm/ (Slurm's packages for
# tests/deb/beside.sh) stays
rm -rf "$OUT/src" "$OUT"/sluice*_*.deb "$OUT"/sluice_*.changes \
    "$OUT"/sluice_*.buildinfo
mkdir -p "$src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" ls-files -z -co --exclude-standard |
        tar -C "$ROOT" --null -T - --ignore-failed-read -cf - 2>/dev/null |
        tar -C "$src" -xf -
else
    tar -C "$ROOT" --exclude=./build --exclude=./build-san \
        --exclude=./build-fuzz -cf - . | tar -C "$src" -xf -
fi

# Build-Depends: what dpkg-checkbuilddeps finds missing
unmet=$(cd "$src" && dpkg-checkbuilddeps 2>&1 | sed -n \
    's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g')
# shellcheck disable=SC2086
[ -n "$unmet" ] && scripts/deps.sh $unmet

(cd "$src" && dpkg-buildpackage -us -uc -b)
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/
rm -rf "$OUT/src"
echo "make deb: lintian"
lintian --fail-on error --info "$OUT"/*.changes
ls -l "$OUT"/*.deb
