#!/usr/bin/env bash
# inside.sh ROOT DEBS: tests/deb/check.sh's part on the scratch machine
# (scratch.sh made it the root: an overlay of the real one).  Installs the
# three packages with dpkg as an administrator would, checks what they put
# where, runs the installed daemons the way their units run them on the
# netns harness's machines, purges the packages and checks what is left.
ROOT=$1
DEBS=$2
. "$ROOT/tests/e2e/netns.sh"
# The installed commands, not the build's (lib.sh put build/bin first).
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
NETNS_PATH=$PATH
UNITS=/lib/systemd/system

# --- install --------------------------------------------------------------
mkdir -p /tmp/debs
cp "$DEBS"/sluice-client_*.deb "$DEBS"/sluice-controller_*.deb \
    "$DEBS"/sluice-node_*.deb /tmp/debs/
# the overlay's changes before: the baseline for what purge must undo
find /.scratch-upper -mindepth 1 | sed 's|^/.scratch-upper||' | sort \
    >/tmp/before.txt
find / -xdev -type d 2>/dev/null | sort >/tmp/dirs-before.txt
if out=$(DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/debs/*.deb 2>&1); then
    ok "dpkg -i sluice-client sluice-controller sluice-node"
else
    not_ok "dpkg -i sluice-client sluice-controller sluice-node"
    printf '%s\n' "$out" | sed 's/^/#   /'
    finish
fi
is "$(dpkg-query -W -f '${db:Status-Abbrev}\n' sluice-client \
    sluice-controller sluice-node | tr -d ' ' | tr '\n' ' ')" \
    "ii ii ii " "all three configured"

# --- files, modes, owners ---------------------------------------------------
# mode_of PATH: "MODE OWNER:GROUP"
mode_of() {
    stat -c '%a %U:%G' "$1" 2>&1
}
is "$(mode_of /usr/bin/sluice)" "755 root:root" "/usr/bin/sluice"
is "$(mode_of /usr/sbin/sluicectld)" "755 root:root" "/usr/sbin/sluicectld"
is "$(mode_of /usr/sbin/sluiced)" "755 root:root" "/usr/sbin/sluiced"
missing=$(ldd /usr/bin/sluice /usr/sbin/sluicectld /usr/sbin/sluiced |
    grep 'not found')
is "$missing" "" "every shared library of the programs is there (shlibs)"
crypto=$(dpkg-query -W -f '${Depends}' sluice-client)
like "$crypto" 'libssl' "sluice-client depends on the package of libcrypto, which it dlopens"
like "$(dpkg-query -W -f '${Depends}' sluice-controller)" '(^|, )munge' \
    "sluice-controller depends on munge (auth/munge is the default)"

names=$(make -s --no-print-directory -C "$ROOT" print-SLURM_NAMES)
bad=
for n in $names; do
    [ "$(readlink -f "/usr/lib/sluice/bin/$n")" = /usr/bin/sluice ] ||
        bad="$bad lib:$n"
    [ "$(readlink -f "/usr/bin/$n")" = /usr/bin/sluice ] || bad="$bad bin:$n"
    [ "$(readlink -f "/usr/share/man/man1/$n.1.gz")" = \
        "/usr/share/man/man1/sluice-$n.1.gz" ] || bad="$bad man:$n"
done
is "$bad" "" "every Slurm name in /usr/lib/sluice/bin, and in /usr/bin and man1 through update-alternatives"
like "$(update-alternatives --query sbatch 2>&1)" \
    'Value: /usr/lib/sluice/bin/sbatch' "update-alternatives has the sbatch group"
is "$(sbatch --version 2>&1)" "sluice 0.1.0" "sbatch on PATH is Sluice's"

warn=
for p in sluice sbatch srun sluice.conf sluicectld sluiced; do
    w=$(LC_ALL=C MANPAGER=cat man --warnings "$p" 2>&1 >/dev/null)
    [ -n "$w" ] && warn="$warn $p: $w"
    LC_ALL=C MANPAGER=cat man "$p" >/dev/null 2>&1 || warn="$warn $p: no page"
done
is "$warn" "" "man sluice, sbatch, srun, sluice.conf, sluicectld, sluiced: found, no warning"

for f in sluice.conf gres.conf cgroup.conf; do
    is "$(mode_of "/etc/sluice/$f.example")" "644 root:root" "/etc/sluice/$f.example"
done
like "$(dpkg-query -W -f '${Conffiles}' sluice-client)" \
    '/etc/sluice/sluice.conf.example' "the examples are conffiles"
like "$(dpkg-query -W -f '${Conffiles}' sluice-controller)" \
    '/etc/default/sluicectld' "/etc/default/sluicectld is a conffile"
cp /etc/sluice/sluice.conf.example /tmp/check.conf
cp /etc/sluice/gres.conf.example /tmp/gres.conf
cp /etc/sluice/cgroup.conf.example /tmp/cgroup.conf
sluice check-config -f /tmp/check.conf >/dev/null 2>/tmp/check.err
is "$?" 0 "the example configuration is valid"
grep -q '^SlurmUser=sluice$' /etc/sluice/sluice.conf.example &&
    ok "the example says SlurmUser=sluice" ||
    not_ok "the example says SlurmUser=sluice"

pw=$(getent passwd sluice)
like "$pw" '^sluice:x:[0-9]+:[0-9]+:' "the system user sluice exists"
uid=$(echo "$pw" | cut -d: -f3)
[ "$uid" -lt 1000 ] && ok "... with a system uid ($uid)" ||
    not_ok "... with a system uid ($uid)"
like "$(echo "$pw" | cut -d: -f7)" 'nologin|false' "... and no login shell"
getent group sluice >/dev/null && ok "the group sluice exists" ||
    not_ok "the group sluice exists"
is "$(mode_of /var/spool/sluice/ctld)" "711 sluice:sluice" \
    "/var/spool/sluice/ctld: the controller's, 0711 (docs/security.md)"
is "$(mode_of /var/spool/sluice/d)" "711 root:root" \
    "/var/spool/sluice/d: root's, 0711"

# --- the units --------------------------------------------------------------
for u in sluicectld sluiced; do
    is "$(mode_of "$UNITS/$u.service")" "644 root:root" "$UNITS/$u.service"
    [ -L "/etc/systemd/system/multi-user.target.wants/$u.service" ] &&
        ok "$u.service is enabled" || not_ok "$u.service is enabled"
    out=$(systemd-analyze verify "$UNITS/$u.service" 2>&1)
    is "$out" "" "systemd-analyze verify $u.service: nothing to say"
done
unit_key() {
    sed -n "s/^$2=//p" "$UNITS/$1.service" | tr '\n' ' '
}
is "$(unit_key sluicectld Type)$(unit_key sluiced Type)" "notify notify " \
    "both units are Type=notify"
is "$(unit_key sluicectld User)" "sluice " "sluicectld runs as sluice"
is "$(unit_key sluiced User)" "" "sluiced runs as root"
is "$(unit_key sluiced KillMode)$(unit_key sluiced Delegate)" \
    "process yes " "sluiced: KillMode=process, Delegate=yes"
is "$(unit_key sluicectld Restart)$(unit_key sluiced Restart)" \
    "on-failure on-failure " "both restart on failure"
like "$(unit_key sluicectld After)" 'munge.service' "sluicectld starts after munge"
like "$(unit_key sluiced Wants)" 'munge.service' "sluiced wants munge"

# --- the units' daemons on the netns harness's machines ---------------------
. "$ROOT/tests/deb/run_units.sh"
units_cluster

# --- purge ------------------------------------------------------------------
rm -f /etc/sluice/sluice.conf /etc/sluice/gres.conf /etc/sluice/cgroup.conf
if out=$(dpkg --purge sluice-node sluice-controller sluice-client 2>&1); then
    ok "dpkg --purge sluice-node sluice-controller sluice-client"
else
    not_ok "dpkg --purge sluice-node sluice-controller sluice-client"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
is "$(dpkg-query -W -f '${db:Status-Abbrev}\n' sluice-client \
    sluice-controller sluice-node 2>&1 | grep -c '^ii')" 0 "none is installed"
# What purge leaves, beyond what was there before: dpkg's own records
# and log, man-db's index, the shadow suite's lock, and the user and
# group sluice (policy keeps system users: files elsewhere may still be
# theirs).  A directory counts only if it was not there before (the
# overlay copies a directory up as soon as something in it changes).
find /.scratch-upper -mindepth 1 | sed 's|^/.scratch-upper||' | sort \
    >/tmp/after.txt
left=
for p in $(comm -13 /tmp/before.txt /tmp/after.txt); do
    case $p in
    /var/lib/dpkg/* | /var/log/* | /var/cache/man/* | /var/cache/debconf/* | \
        /etc/passwd* | /etc/group* | /etc/shadow* | /etc/gshadow* | \
        /etc/subuid* | /etc/subgid* | /etc/.pwd.lock | /.old | /.scratch-upper)
        continue
        ;;
    esac
    if [ -d "$p" ] && [ ! -L "$p" ]; then
        grep -qxF -- "$p" /tmp/dirs-before.txt && continue
    elif [ ! -e "$p" ] && [ ! -L "$p" ]; then
        continue
    fi
    left="$left $p"
done
is "$left" "" "after purge nothing is left but dpkg's records and the user sluice"
[ ! -e /var/spool/sluice ] && ok "/var/spool/sluice is gone" ||
    not_ok "/var/spool/sluice is gone"
[ ! -e /etc/sluice ] && ok "/etc/sluice is gone" || not_ok "/etc/sluice is gone"
[ ! -e /etc/alternatives/sbatch ] && [ ! -e /usr/bin/sbatch ] &&
    ok "the alternatives are gone" || not_ok "the alternatives are gone"
getent passwd sluice >/dev/null && ok "the user sluice stays (policy)" ||
    not_ok "the user sluice stays (policy)"
finish
