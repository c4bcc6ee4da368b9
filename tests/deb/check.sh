#!/usr/bin/env bash
# make check-deb: the Debian packages as an administrator gets them.
#
#   1. lintian finds no error in them (tags it reports at the default
#      level are listed; docs/deploying.md says which are kept and why);
#   2. on a scratch machine (a copy-on-write overlay of this system's root,
#      in mount and PID namespaces of its own, so that nothing of this
#      system changes) they are installed with dpkg, their files, modes,
#      owners, users, alternatives and units checked, the units verified
#      with systemd-analyze, a controller and two nodes started the way
#      the units start them on the netns harness's machines (a job and a
#      two-node step run, a node daemon restarts under a running job), and
#      then purged: what is left is only what policy keeps
#      (tests/deb/inside.sh);
#   3. where DEBS/slurm/ holds Debian's slurm-client packages, on another
#      scratch machine, the Slurm names pass between the two clients
#      (tests/deb/beside.sh).
#
# The packages are built when SLUICE_DEB_DIR (default build/deb) has none.
# Skips (one "ok # SKIP" line) where dpkg-buildpackage or lintian is
# missing, without root, or where an overlay cannot be mounted.  Ends with
# "N passed, N failed", like make check.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEBS=${SLUICE_DEB_DIR:-build/deb}
case $DEBS in /*) ;; *) DEBS=$ROOT/$DEBS ;; esac
LOG=$(mktemp /tmp/sluice-check-deb.XXXXXX)

summary() {
    local ok nok
    ok=$(grep -cE '^ok ' "$LOG")
    nok=$(grep -cE '^not ok ' "$LOG")
    echo
    echo "$ok passed, $nok failed"
    rm -f "$LOG"
    [ "$nok" -eq 0 ]
}

skip() {
    echo "ok 1 # SKIP $*" | tee -a "$LOG"
    summary
    exit
}

for c in dpkg-buildpackage lintian dpkg unshare; do
    command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
done
[ "$(id -u)" = 0 ] || skip "installing packages into a scratch root needs root"

if ! ls "$DEBS"/sluice-client_*.deb >/dev/null 2>&1; then
    echo "# no packages in $DEBS: make deb"
    "$ROOT/scripts/deb.sh" "$DEBS" >"$LOG.build" 2>&1 || {
        echo "not ok 1 - make deb" | tee -a "$LOG"
        tail -30 "$LOG.build" | sed 's/^/#   /'
        rm -f "$LOG.build"
        summary
        exit
    }
    rm -f "$LOG.build"
fi

# --- 1. lintian --------------------------------------------------------
lintian --fail-on error "$DEBS"/*.changes >"$LOG.lintian" 2>&1
rc=$?
out=$(grep -v 'running with root privileges' "$LOG.lintian")
rm -f "$LOG.lintian"
if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^E: '; then
    echo "ok - lintian: no error" | tee -a "$LOG"
else
    echo "not ok - lintian: no error" | tee -a "$LOG"
fi
printf '%s\n' "$out" | grep -E '^[EWI]: ' | sed 's/^/#   lintian /'

# --- 2. the scratch machine ---------------------------------------------
unshare --mount --pid --fork --propagation private -- \
    bash "$ROOT/tests/deb/scratch.sh" "$ROOT" "$DEBS" 2>&1 | tee -a "$LOG"

# --- 3. beside Debian's slurm-client, when its packages are at hand ------
if ls "$DEBS"/slurm/slurm-client_*.deb >/dev/null 2>&1; then
    unshare --mount --pid --fork --propagation private -- \
        bash "$ROOT/tests/deb/scratch.sh" "$ROOT" "$DEBS" \
        "$ROOT/tests/deb/beside.sh" 2>&1 | tee -a "$LOG"
else
    echo "ok - # SKIP beside slurm-client: put its .debs in $DEBS/slurm/" \
        "(apt-get download slurm-client slurm-wlm-basic-plugins)" |
        tee -a "$LOG"
fi
summary
