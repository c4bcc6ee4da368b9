# The installed daemons as their units start them, on the netns harness's
# machines (sourced by tests/deb/inside.sh after tests/e2e/netns.sh): a
# controller (ctld), two nodes and a login host, the packaged
# configuration layout (/etc/sluice/sluice.conf, read by every host), the
# package's defaults (auth/munge through one munged, SlurmUser=sluice, the
# controller running as sluice).  Each daemon is started from its unit:
# ExecStart, User and Group, Environment and EnvironmentFile, with
# NOTIFY_SOCKET pointing at a socket of this test, which must hear
# READY=1 (Type=notify).  Then: a partition added to the file and the
# controller reloaded as systemctl reload does (ExecReload, as sluice), a
# job, a step on both nodes, and a node daemon stopped as systemctl would
# stop it (KillMode=process: SIGTERM to sluiced alone) and started again
# under a running job.

# unit_value UNIT KEY: the unit's KEY= lines, one word list
unit_value() {
    sed -n "s/^$2=//p" "$UNITS/$1.service" | tr '\n' ' ' | sed 's/ $//'
}

# notify_listen HOST: a socket for HOST's readiness (READY=1 ... into
# $DIR/notify-HOST.log), open to the unit's user.
notify_listen() {
    local sock=$DIR/notify-$1
    rm -f "$sock" "$sock.log"
    python3 - "$sock" >"$sock.log" 2>&1 <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.settimeout(60)
try:
    while True:
        msg = s.recv(4096).decode()
        print(msg.replace("\n", " "), flush=True)
        if "READY=1" in msg:
            break
except socket.timeout:
    print("timeout", flush=True)
PY
    wait_for 5 test -S "$sock"
}

# unit_start HOST UNIT: UNIT's daemon on HOST, as systemd would start it;
# waits for its READY=1.
unit_start() {
    local h=$1 u=$2 user group envs envfile cmd as=()
    user=$(unit_value "$u" User)
    group=$(unit_value "$u" Group)
    envs=$(unit_value "$u" Environment)
    envfile=$(unit_value "$u" EnvironmentFile)
    envfile=${envfile#-}
    cmd=$(unit_value "$u" ExecStart)
    [ -n "$user" ] && as=(setpriv "--reuid=$user" "--regid=${group:-$user}"
        --init-groups --)
    notify_listen "$h"
    # shellcheck disable=SC2086
    netns_on "$h" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $envs \
        NOTIFY_SOCKET="$DIR/notify-$h" "${as[@]}" bash -c \
        "set -a; [ -r '$envfile' ] && . '$envfile'; set +a; exec $cmd" \
        </dev/null >>"$(netns_log "$h.journal")" 2>&1 &
    if wait_for 30 grep -q 'READY=1' "$DIR/notify-$h.log"; then
        ok "$u on $h: started from its unit, READY=1 heard"
    else
        not_ok "$u on $h: started from its unit, READY=1 heard"
        sed 's/^/#   /' "$DIR/notify-$h.log" "$DIR/log/$h.journal" | tail -20
        return 1
    fi
}

# unit_reload HOST UNIT: UNIT's ExecReload on HOST, as systemctl reload
# runs it (the unit's user and environment).
unit_reload() {
    local h=$1 u=$2 user cmd as=() out
    user=$(unit_value "$u" User)
    cmd=$(unit_value "$u" ExecReload)
    [ -n "$user" ] && as=(setpriv "--reuid=$user" "--regid=$user"
        --init-groups --)
    # shellcheck disable=SC2086
    out=$(netns_on "$h" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        $(unit_value "$u" Environment) "${as[@]}" $cmd 2>&1)
    is "$?" 0 "systemctl reload $u: $cmd, as ${user:-root}"
    [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
}

# units_munged: one munged for every machine (the socket is in /run,
# which they share), on this scratch machine's own key.
units_munged() {
    local m=$DIR/munge
    mkdir -m 0755 -p /run/munge "$m"
    dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 status=none
    chmod 600 "$m/munge.key"
    munged -F --key-file="$m/munge.key" --socket=/run/munge/munge.socket.2 \
        --pid-file="$m/munged.pid" --seed-file="$m/munged.seed" \
        --log-file="$m/munged.log" >"$m/munged.out" 2>&1 &
    wait_for 10 test -S /run/munge/munge.socket.2
}

units_cluster() {
    local id h out n
    # The installed programs, not the build's (a clean clone has none):
    # netns_need looks for the daemons in E2E_BIN, netns_wrappers runs the
    # commands from there on the login host, through the alternatives in
    # /usr/bin.  /tmp is the scratch machine's own.
    E2E_BIN=$(mktemp -d /tmp/sluice-installed.XXXXXX)
    ln -s /usr/sbin/sluicectld /usr/sbin/sluiced "$E2E_BIN/"
    for n in sluice $(make -s --no-print-directory -C "$ROOT" \
        print-SLURM_NAMES); do
        ln -s "/usr/bin/$n" "$E2E_BIN/$n"
    done
    netns_need
    netns_sweep
    NETNS_NODES="node01 node02"
    NETNS_HOSTS="ctld login $NETNS_NODES"
    DIR=$(mktemp -d /tmp/sluice-netns.XXXXXX)
    chmod 0711 "$DIR" # sluicectld, as sluice, reaches its state below
    trap netns_stop EXIT
    mkdir -p "$DIR"/{work,san,net/nostate,hosts}
    install -d -o sluice -g sluice -m 0711 "$DIR/state"
    mkdir -m 0711 "$DIR/spool"
    mkdir -m 0700 "$DIR/log"
    chmod 0711 "$DIR/net/nostate"
    chmod 1777 "$DIR/work"
    # the packaged example's keys, pointed at this test's directories
    sed -e 's/^SlurmctldHost=.*/SlurmctldHost=ctld/' \
        -e "s|^StateSaveLocation=.*|StateSaveLocation=$DIR/state|" \
        -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$DIR/spool/%n|" \
        -e 's/^NodeName=.*/NodeName=node[01-02] CPUs=2 RealMemory=1000 Gres=gpu:2 State=UNKNOWN/' \
        -e '/^PartitionName=/d' -e '/^PreemptType/d' \
        /etc/sluice/sluice.conf.example >/etc/sluice/sluice.conf
    {
        echo "SlurmdParameters=config_overrides"
        echo "PartitionName=all Nodes=node[01-02] Default=YES MaxTime=INFINITE"
    } >>/etc/sluice/sluice.conf
    echo "NodeName=node[01-02] Name=gpu Count=2" >/etc/sluice/gres.conf
    printf 'ConstrainRAMSpace=no\n' >/etc/sluice/cgroup.conf
    {
        echo "127.0.0.1 localhost"
        for h in $NETNS_HOSTS; do
            echo "$(netns_addr "$h") $h"
        done
    } >"$DIR/net/hosts"
    units_munged || { not_ok "munged runs"; return; }
    ip netns add "$(netns_ns switch)" &&
        ip -n "$(netns_ns switch)" link add br0 type bridge &&
        ip -n "$(netns_ns switch)" link set br0 up ||
        { not_ok "the switch"; return; }
    for h in $NETNS_HOSTS; do
        netns_link "$h" && netns_boot "$h" || { not_ok "machine $h"; return; }
    done
    netns_wrappers
    PATH=$DIR/bin:$PATH
    export SLUICE_CONF=/etc/sluice/sluice.conf
    WORK=$DIR/work
    cd "$WORK" || return

    unit_start ctld sluicectld || return
    like "$(ps -o user= -p "$(netns_daemon_pid ctld)")" '^sluice' \
        "sluicectld runs as the user sluice"
    for h in $NETNS_NODES; do
        unit_start "$h" sluiced || return
    done
    if wait_for 30 netns_registered; then
        ok "both nodes registered: the controller, as sluice, is heard by root's sluiced (SlurmUser, munge)"
    else
        not_ok "both nodes registered"
        sinfo -N 2>&1 | sed 's/^/#   /'
        return
    fi
    # systemctl reload after an edit of the configuration
    echo "PartitionName=extra Nodes=node01 MaxTime=1:00:00" \
        >>/etc/sluice/sluice.conf
    unit_reload ctld sluicectld
    wait_for 10 eval '[ "$(sinfo -h -p extra -o %P)" = extra ]'
    is "$(sinfo -h -p extra -o %P 2>&1)" extra \
        "... and the controller serves the partition added to the file"
    id=$(sbatch --parsable -N1 -w node01 --gres=gpu:1 \
        --wrap 'echo "host=$(hostname) gpus=$CUDA_VISIBLE_DEVICES"')
    wait_for 30 job_ended "$id"
    is "$(cat "slurm-$id.out" 2>&1)" "host=node01 gpus=0" \
        "a job ran on node01 with its GPU"
    out=$(timeout 60 srun -N2 -l hostname 2>&1 | sort)
    is "$out" "0: node01
1: node02" "srun -N2 ran a step on both nodes"

    # systemctl restart sluiced: SIGTERM to sluiced alone (KillMode=process)
    id=$(sbatch --parsable -w node02 --wrap 'sleep 3; echo survived')
    wait_for 20 eval "[ \"\$(job_state $id)\" = RUNNING ]"
    netns_daemon_stop node02 TERM
    unit_start node02 sluiced
    wait_for 40 job_ended "$id"
    is "$(sacct -n -X -j "$id" -o State -P)" COMPLETED \
        "a job running across a restart of sluiced completes"
    is "$(cat "slurm-$id.out" 2>&1)" survived "... with its output"
    netns_gone
    kill "$(cat "$DIR/munge/munged.pid")" 2>/dev/null
}
