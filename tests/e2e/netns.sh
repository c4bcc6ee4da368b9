# A cluster of several machines on this one (sourced by the t3N netns
# tests, after which lib.sh's helpers work as usual): the controller, a
# login host and each node daemon run on a "machine" of their own, i.e. in
# network, UTS, mount and PID namespaces of their own, with their own host
# name (the NodeName), their own address on a veth to a bridge that lives
# in a namespace of its own (nothing of the host's network is touched),
# the cluster's names in an /etc/hosts of their own, and a boot id of
# their own.  The key file and the test directory are shared, as over
# NFS; the controller's StateSaveLocation is seen by the controller only,
# so every command and daemon elsewhere reaches it over TCP with auth/key.
#
#   . "$(dirname "$0")/netns.sh"
#   netns_start "node01 node02" [GRES_CONF_LINES] <<'EOF'
#   NodeName=node[01-02] CPUs=4 ...  # the configuration's own keys (the
#   EOF                              # harness adds host, auth and paths)
#                                  # DIR, WORK (the cwd), SLUICE_CONF; the
#                                  # CLI commands (sbatch, squeue, ...) now
#                                  # run on the login host
#   netns_on HOST CMD...           # CMD on HOST (in the current directory)
#   netns_daemon_stop HOST [SIG]   # the controller (ctld) or a sluiced,
#   netns_daemon_start HOST        # stopped (TERM, or KILL...) and started
#   netns_daemon_pid HOST          # its pid as this shell sees it
#   netns_cut HOST / netns_mend HOST   # its link down / up again
#   netns_poweroff HOST [keep]     # every process of HOST gone at once,
#                                  # its cgroups and (unless keep) spool
#   netns_boot HOST                # HOST up again (then netns_daemon_start)
#   netns_gone                     # daemons stopped cleanly, nothing left
#
# Jobs record their runs with $WORK/runrec.sh (below); netns_overlaps
# tells from those records whether two runs of one job ever overlapped.
# Every namespace, link, mount and process is removed by the EXIT trap,
# also after a failure.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NETNS_TAG=slns$$ # the names of this test's namespaces: slns<pid>-<host>
NETNS_NET=10.213.0
NETNS_HOSTS=
NETNS_NODES=
NETNS_PATH=$PATH

# netns_need: skip the test where namespaces cannot be made.
netns_need() {
    local c probe=${NETNS_TAG}-probe
    [ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
    for c in ip unshare nsenter mount hostname realpath; do
        command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed"
    done
    need_daemons
    ip netns add "$probe" >/dev/null 2>&1 ||
        skip_all "cannot make a network namespace (ip netns add)"
    ip netns del "$probe" >/dev/null 2>&1
    # what netns_init.sh does: a host name, files bound over /etc/hosts
    # and the boot id
    unshare --pid --fork --mount --uts --propagation private --mount-proc \
        sh -c 'hostname probe && mount --bind /etc/passwd /etc/hosts &&
            mount --bind /etc/passwd /proc/sys/kernel/random/boot_id' \
        >/dev/null 2>&1 ||
        skip_all "cannot make PID, mount and UTS namespaces and bind files" \
            "there (unshare, mount --bind)"
}

# netns_sweep: namespaces of earlier runs of this harness whose shell is
# gone (killed before its trap ran) and where nothing runs any more.
netns_sweep() {
    local ns pid
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' |
        grep -E '^slns[0-9]+-'); do
        pid=${ns#slns}
        pid=${pid%%-*}
        kill -0 "$pid" 2>/dev/null && continue
        [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && ip netns del "$ns"
    done
}

netns_ns() {
    echo "${NETNS_TAG}-$1"
}

netns_addr() {
    local h i=11
    case $1 in
    ctld) echo "$NETNS_NET.2" ;;
    login) echo "$NETNS_NET.3" ;;
    *)
        for h in $NETNS_NODES; do
            [ "$h" = "$1" ] && break
            i=$((i + 1))
        done
        echo "$NETNS_NET.$i"
        ;;
    esac
}

# netns_log NAME: DIR/log/NAME, made private (0600) before anyone writes.
netns_log() {
    (umask 077 && : >>"$DIR/log/$1")
    echo "$DIR/log/$1"
}

# netns_init_pid HOST: process 1 of HOST, as this shell sees it.
netns_init_pid() {
    cat "$DIR/hosts/$1/init.pid" 2>/dev/null
}

# netns_on HOST CMD...: CMD on HOST, in the current directory.
netns_on() {
    local h=$1
    shift
    nsenter --target "$(netns_init_pid "$h")" --net --uts --mount --pid \
        --wd="$PWD" -- "$@"
}

# netns_procs HOST: the pids (as this shell sees them) of the processes
# of HOST's current boot (its PID namespace, noted by netns_boot).
netns_procs() {
    local ino
    ino=$(cat "$DIR/hosts/$1/pidns" 2>/dev/null)
    [ -n "$ino" ] || return 0
    stat -L -c '%n %i' /proc/[0-9]*/ns/pid 2>/dev/null |
        awk -v ino="$ino" '$2 == ino { split($1, p, "/"); print p[3] }'
}

# netns_link HOST: its network: a namespace, a veth from the switch's
# bridge, its address.
netns_link() {
    local h=$1 ns sw
    ns=$(netns_ns "$h")
    sw=$(netns_ns switch)
    ip netns add "$ns" &&
        ip -n "$sw" link add "p-$h" type veth peer name eth0 netns "$ns" &&
        ip -n "$sw" link set "p-$h" master br0 up &&
        ip -n "$ns" addr add "$(netns_addr "$h")/24" dev eth0 &&
        ip -n "$ns" link set eth0 up &&
        ip -n "$ns" link set lo up
}

# netns_boot HOST: HOST's process 1 in fresh PID, mount and UTS namespaces
# (see netns_init.sh), with a new boot id.
netns_boot() {
    local h=$1 hd=$DIR/hosts/$1 up
    mkdir -p "$hd"
    cat /proc/sys/kernel/random/uuid >"$hd/boot_id"
    rm -f "$hd/ready" "$hd/init.pid"
    nsenter --net="/run/netns/$(netns_ns "$h")" -- \
        unshare --pid --fork --mount --uts --propagation private \
        --mount-proc -- bash "$E2E_ROOT/tests/e2e/netns_init.sh" "$h" "$DIR" \
        </dev/null >>"$(netns_log "$h.init")" 2>&1 &
    up=$!
    if ! wait_for 10 test -e "$hd/ready"; then
        not_ok "machine $h boots"
        sed 's/^/#   /' "$DIR/log/$h.init"
        return 1
    fi
    # unshare's one child is the machine's process 1
    ps -o pid= --ppid "$up" | tr -d ' ' >"$hd/init.pid"
    stat -L -c %i "/proc/$(cat "$hd/init.pid")/ns/pid" >"$hd/pidns"
    echo "$up" >"$hd/unshare.pid"
}

# netns_pidfile HOST: where HOST's daemon writes its pid (as HOST sees it).
netns_pidfile() {
    if [ "$1" = ctld ]; then
        echo "$DIR/state/sluicectld.pid"
    else
        echo "$DIR/spool/$1/sluiced.pid"
    fi
}

# netns_daemon_pid HOST: the daemon's pid as this shell sees it (NSpid's
# first field), or nothing when it does not run.
netns_daemon_pid() {
    local want comm=sluiced
    [ "$1" = ctld ] && comm=sluicectld
    want=$(cut -d' ' -f1 "$(netns_pidfile "$1")" 2>/dev/null)
    [ -n "$want" ] || return 0
    # Name, State and NSpid of each of HOST's processes, in one awk
    netns_procs "$1" | sed 's|.*|/proc/&/status|' |
        xargs -r awk -v comm="$comm" -v want="$want" '
            FNR == 1 { name = ""; state = "" }
            /^Name:/ { name = $2 }
            /^State:/ { state = $2 }
            /^NSpid:/ && name == comm && state != "Z" && $NF == want {
                split(FILENAME, p, "/"); print p[3] }' 2>/dev/null
}

# netns_daemon_start HOST: sluicectld on ctld, sluiced on a node (which
# finds its NodeName from its host name); they detach once they serve.
netns_daemon_start() {
    local h=$1
    if [ "$h" = ctld ]; then
        netns_on ctld sluicectld -f "$SLUICE_CONF" \
            -L "$(netns_log sluicectld.log)" 2>>"$(netns_log ctld.err)"
    else
        netns_on "$h" sluiced -f "$SLUICE_CONF" -L "$(netns_log "$h.log")" \
            2>>"$(netns_log "$h.err")"
    fi
}

# netns_daemon_stop HOST [SIG]: signal the daemon (TERM) and wait until
# it is gone.
netns_daemon_stop() {
    local pid
    pid=$(netns_daemon_pid "$1")
    [ -n "$pid" ] || return 0
    kill "-${2:-TERM}" "$pid"
    wait_for 20 eval "! alive $pid"
}

# netns_cut HOST / netns_mend HOST: HOST's link down / up (a cable pulled
# and put back: its connections stay, their packets are lost meanwhile).
netns_cut() {
    ip -n "$(netns_ns "$1")" link set eth0 down
}

netns_mend() {
    ip -n "$(netns_ns "$1")" link set eth0 up
}

# netns_cgroup_name NODE: the node's cgroup (sluiced: NODE-<FNV-1a of
# its spool>).
netns_cgroup_name() {
    local s c i h=2166136261
    s=$(realpath -m "$DIR/spool/$1")
    for ((i = 0; i < ${#s}; i++)); do
        printf -v c '%d' "'${s:i:1}"
        h=$((((h ^ c) * 16777619) & 0xffffffff))
    done
    printf '%s-%08x\n' "$1" "$h"
}

# netns_cgroup_wipe NODE: what a reboot takes: the node's cgroups (thawed
# first, so that frozen processes take their SIGKILL).
netns_cgroup_wipe() {
    local name d
    name=$(netns_cgroup_name "$1")
    for d in /sys/fs/cgroup/*/sluice/"$name" /sys/fs/cgroup/sluice/"$name"; do
        [ -d "$d" ] || continue
        find "$d" -name freezer.state -exec sh -c \
            'for f; do echo THAWED >"$f"; done' _ {} + 2>/dev/null
        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
        rmdir "$(dirname "$d")" 2>/dev/null
    done
}

# netns_halt HOST: every process of HOST killed at once.
netns_halt() {
    local h=$1 init up
    init=$(netns_init_pid "$h")
    up=$(cat "$DIR/hosts/$h/unshare.pid" 2>/dev/null)
    [ -n "$init" ] || return 0
    kill -9 "$init" 2>/dev/null
    case $h in ctld | login) ;; *) netns_cgroup_wipe "$h" ;; esac
    wait_for 20 eval "[ -z \"\$(netns_procs $h)\" ]" ||
        echo "# $h: processes left after its power-off: $(netns_procs "$h")"
    [ -n "$up" ] && wait_for 10 eval "! kill -0 $up 2>/dev/null"
    case $h in ctld | login) ;; *) netns_cgroup_wipe "$h" ;; esac
    rm -f "$DIR/hosts/$h/init.pid" "$DIR/hosts/$h/ready" \
        "$DIR/hosts/$h/pidns"
}

# netns_poweroff NODE [keep]: the node gone as in a crash of its machine:
# all its processes at once, its cgroups, and its spool unless "keep" (a
# spool on a disk that survives the reboot).  A reboot is netns_poweroff,
# netns_boot (a new boot id), netns_daemon_start.
netns_poweroff() {
    netns_halt "$1"
    [ "${2:-}" = keep ] || rm -rf "${DIR:?}/spool/$1"
}

# netns_conf: DIR/sluice.conf, the cluster's keys then the test's (from
# stdin).
netns_conf() {
    {
        echo "# Written by tests/e2e/netns.sh for a cluster of namespaces."
        echo "SlurmctldHost=ctld"
        echo "AuthType=auth/key"
        echo "AuthInfo=$DIR/sluice.key"
        echo "StateSaveLocation=$DIR/state"
        echo "SlurmdSpoolDir=$DIR/spool/%n"
        echo "SlurmdParameters=config_overrides"
        cat
    } >"$DIR/sluice.conf"
}

# netns_wrappers: the CLI commands, run on the login host (in its PID
# namespace too: the /proc seen there is that namespace's, and a process
# must find itself in it).  Their PATH is the test's without the
# wrappers, so that a job (which takes sbatch's environment) runs the real
# commands on its own node.
netns_wrappers() {
    local b name
    mkdir -p "$DIR/bin"
    for b in "$E2E_BIN"/*; do
        name=${b##*/}
        case $name in sluicectld | sluiced) continue ;; esac
        cat >"$DIR/bin/$name" <<EOF
#!/bin/sh
PATH='$NETNS_PATH'
export PATH
exec nsenter --target "\$(cat '$DIR/hosts/login/init.pid')" --net --uts \\
    --mount --pid --wd="\$PWD" -- '$E2E_BIN/$name' "\$@"
EOF
        chmod 755 "$DIR/bin/$name"
    done
}

# netns_registered: every node is up (not down, not unknown) in sinfo.
netns_registered() {
    local want got
    want=$(echo "$NETNS_NODES" | wc -w)
    got=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u |
        grep -cvE ' (down|unk|inval|drain|fail)')
    [ "$got" -eq "$want" ]
}

# netns_start NODES [GRES]: the cluster, up and registered: its
# configuration is the harness's keys and stdin, gres.conf is GRES.
netns_start() {
    local h gres=${2:-}
    netns_need
    netns_sweep
    NETNS_NODES=$1
    NETNS_HOSTS="ctld login $NETNS_NODES"
    DIR=$(mktemp -d /tmp/sluice-netns.XXXXXX)
    trap netns_stop EXIT
    trap 'exit 130' INT TERM
    mkdir -p "$DIR"/{work,san,net/nostate,hosts}
    mkdir -m 0711 "$DIR/state" "$DIR/spool"
    mkdir -m 0700 "$DIR/log"
    chmod 0711 "$DIR/net/nostate"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$DIR/san/asan"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$DIR/san/ubsan"
    (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' \
        >"$DIR/sluice.key")
    netns_conf
    [ -n "$gres" ] && printf '%s\n' "$gres" >"$DIR/gres.conf"
    {
        echo "127.0.0.1 localhost"
        for h in $NETNS_HOSTS; do
            echo "$(netns_addr "$h") $h"
        done
    } >"$DIR/net/hosts"
    export SLUICE_CONF=$DIR/sluice.conf
    ip netns add "$(netns_ns switch)" &&
        ip -n "$(netns_ns switch)" link add br0 type bridge &&
        ip -n "$(netns_ns switch)" link set br0 up || {
        not_ok "the switch (a bridge in a namespace)"
        exit 1
    }
    for h in $NETNS_HOSTS; do
        if ! netns_link "$h" || ! netns_boot "$h"; then
            not_ok "machine $h"
            exit 1
        fi
    done
    netns_wrappers
    PATH=$DIR/bin:$PATH
    export PATH
    WORK=$DIR/work
    cd "$WORK" || exit 1
    if ! netns_daemon_start ctld || ! wait_for 20 sinfo; then
        not_ok "sluicectld starts on ctld"
        exit 1
    fi
    for h in $NETNS_NODES; do
        if ! netns_daemon_start "$h"; then
            not_ok "sluiced starts on $h"
            exit 1
        fi
    done
    if ! wait_for 30 netns_registered; then
        not_ok "every node registers"
        sinfo -N 2>&1 | sed 's/^/#   /'
        exit 1
    fi
}

# netns_stop: the EXIT trap: logs after a failure, then every machine
# halted, every namespace removed, the directory too (E2E_KEEP=1 keeps
# it).
netns_stop() {
    local h f
    [ -n "$DIR" ] && [ -d "$DIR" ] || return 0
    cd / || true
    if [ "$TAP_FAILED" -ne 0 ]; then
        for f in "$DIR"/log/*; do
            [ -s "$f" ] || continue
            echo "# --- $f (last 15 lines)"
            tail -15 "$f" | sed 's/^/#   /'
        done
    fi
    for h in $NETNS_HOSTS; do
        netns_halt "$h"
        ip netns del "$(netns_ns "$h")" 2>/dev/null
    done
    ip netns del "$(netns_ns switch)" 2>/dev/null
    if [ "${E2E_KEEP:-0}" = 1 ]; then
        echo "# kept $DIR"
    else
        rm -rf "$DIR"
    fi
    DIR=
}

# netns_gone: the daemons stopped as an operator would (SIGTERM; jobs
# cancelled first), no sanitizer report, and no job process left.
netns_gone() {
    local h left
    scancel -u "$(id -un)" >/dev/null 2>&1
    wait_for 30 eval '[ -z "$(squeue -h -o %i 2>/dev/null)" ]'
    for h in $NETNS_NODES ctld; do
        netns_daemon_stop "$h"
    done
    left=
    for h in $NETNS_NODES; do
        # process 1 (netns_init.sh) and its "sleep 3599" are the machine's
        for p in $(netns_procs "$h"); do
            [ "$p" = "$(netns_init_pid "$h")" ] && continue
            [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 3599 " ] &&
                continue
            left="$left $h:$p:$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
        done
    done
    is "$left" "" "no process of a job or daemon is left on any node"
    is "$(cd "$DIR/san" && ls)" "" "no sanitizer report from any process"
}

# --- the jobs' own records ----------------------------------------------
# runrec.sh [SECONDS]: a job that records its run every 0.2 s in
# runs.txt ("JOB HOST RUN NOW RESTARTS", RUN its pid and a random number,
# NOW with nanoseconds) until a
# file "stop-JOB" (or "stop") exists or SECONDS (default 600) passed, and
# then a last line with "end".
netns_recorder() {
    cat >"$WORK/runrec.sh" <<'EOF'
#!/bin/bash
n=$(awk -v s="${1:-600}" 'BEGIN { print int(s * 5) }')
run=$$-$RANDOM$RANDOM # the pid alone may come back after a reboot
rec() {
    echo "$SLURM_JOB_ID $(hostname) $run $(date +%s.%N) ${SLURM_RESTART_COUNT:-0}$1" >>runs.txt
}
for ((i = 0; i < n; i++)); do
    rec ""
    [ -e "stop-$SLURM_JOB_ID" ] || [ -e stop ] && break
    sleep 0.2
done
rec " end"
EOF
    chmod +x "$WORK/runrec.sh"
}

# netns_runs FILE: one line per run "JOB HOST RUN FIRST LAST ENDED".
netns_runs() {
    awk '{ k = $1 " " $2 " " $3
           if (!(k in first)) { first[k] = $4; order[++n] = k }
           last[k] = $4
           if ($6 == "end") ended[k] = 1 }
         END { for (i = 1; i <= n; i++) {
                 k = order[i]; print k, first[k], last[k], (k in ended) ? 1 : 0 } }' \
        "$1"
}

# What the fault tests ask of the cluster and of runs.txt (runrec.sh's
# records in the shared work directory):
# node_state NODE: sinfo's short state; is_down NODE: down, with or
# without its suffix.
node_state() { sinfo -h -N -n "$1" -o %t | head -1; }
is_down() { case $(node_state "$1") in down*) return 0 ;; esac; return 1; }
# runs_of JOB: how many runs of JOB left records; recording JOB: one of
# them made a record in the last second; started JOB [N]: JOB has N runs
# (default 1) and is recording.
runs_of() { netns_runs runs.txt | awk -v j="$1" '$1 == j' | wc -l; }
recording() {
    local last
    last=$(awk -v j="$1" '$1 == j { t = $4 } END { print t }' runs.txt)
    [ -n "$last" ] && awk -v t="$last" -v now="$(date +%s.%N)" \
        'BEGIN { exit !(now - t < 1) }'
}
started() { [ "$(runs_of "$1")" -ge "${2:-1}" ] && recording "$1"; }

# netns_overlaps FILE: the pairs of runs of one job whose records
# overlap in time (two copies of the job alive at once); nothing when
# none did.
netns_overlaps() {
    netns_runs "$1" | sort -k1,1n -k4,4n | awk '
        $1 != job { job = $1; end = $5; prev = $2 ":" $3; next }
        $4 <= end { print "job " $1 ": runs " prev " and " $2 ":" $3 " overlap" }
        $5 > end { end = $5; prev = $2 ":" $3 }'
}
