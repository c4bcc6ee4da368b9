#!/usr/bin/env bash
# beside.sh ROOT DEBS: sluice-client beside Debian's slurm-client on one
# machine (run on a scratch machine by tests/deb/check.sh when DEBS/slurm/
# holds slurm-client's .deb and what it needs: apt-get download
# slurm-client slurm-wlm-basic-plugins).  The Slurm names belong to
# whichever client holds them: Slurm's files stay Slurm's, and when
# slurm-client goes, the trigger on /usr/bin gives them to Sluice
# (docs/deploying.md, "The Slurm names").
ROOT=$1
DEBS=$2
. "$ROOT/tests/e2e/lib.sh"
PATH=/usr/sbin:/usr/bin:/sbin:/bin

slurm_in() {
    DEBIAN_FRONTEND=noninteractive dpkg -i --force-depends "$DEBS"/slurm/*.deb \
        >/tmp/slurm-in.log 2>&1
}
slurm_out() {
    dpkg -r --force-depends slurm-client >/tmp/slurm-out.log 2>&1
}
owner() { # whose sbatch /usr/bin has: slurm, sluice or none
    if [ ! -e /usr/bin/sbatch ]; then
        echo none
    elif [ -L /usr/bin/sbatch ] &&
        [ "$(readlink -f /usr/bin/sbatch)" = /usr/bin/sluice ]; then
        echo sluice
    else
        echo slurm
    fi
}

slurm_in && ok "slurm-client installed" || not_ok "slurm-client installed"
out=$(dpkg -i "$DEBS"/sluice-client_*.deb 2>&1)
is "$?" 0 "sluice-client installs beside it"
is "$(printf '%s\n' "$out" | grep -c 'warning')" 0 "... without a warning"
is "$(owner)" slurm "/usr/bin/sbatch stays Slurm's"
[ "$(readlink -f /usr/lib/sluice/bin/sbatch)" = /usr/bin/sluice ] &&
    ok "Sluice's sbatch is in /usr/lib/sluice/bin" ||
    not_ok "Sluice's sbatch is in /usr/lib/sluice/bin"
is "$(/usr/lib/sluice/bin/sbatch --version)" "sluice 0.1.0" "... and runs"
is "$(readlink -f /usr/share/man/man1/sbatch.1.gz)" \
    /usr/share/man/man1/sbatch.1.gz "man sbatch stays Slurm's"
slurm_out
is "$(owner)" sluice "slurm-client removed: the trigger gives sbatch to Sluice"
is "$(readlink -f /usr/share/man/man1/srun.1.gz)" \
    /usr/share/man/man1/sluice-srun.1.gz "... and man srun"
slurm_in && ok "slurm-client installed again" ||
    not_ok "slurm-client installed again"
is "$(owner)" slurm "its files replace the links"
slurm_out
is "$(owner)" sluice "removed again: Sluice's once more"
dpkg --purge sluice-client >/dev/null 2>&1
is "$(owner)" none "sluice-client purged: no sbatch left"
finish
