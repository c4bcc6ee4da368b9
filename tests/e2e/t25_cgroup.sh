#!/usr/bin/env bash
# Jobs in cgroups on a local cluster (one node): a job is in its own
# cgroup, a job over its memory is OOM-killed and the node reports oom,
# a cancelled job that double-forked sleeps into the background leaves
# nothing behind, nor does a job that ends while its daemon runs on, and
# a job of one CPU is pinned to one.  Skipped, with the node's reason,
# where the machine gives no writable cgroup hierarchy.
. "$(dirname "$0")/lib.sh"

CONF=$(mktemp /tmp/sluice-t25-conf.XXXXXX)
cat >"$CONF" <<'EOF'
ClusterName=t25
SlurmctldHost=localhost
NodeName=node01 CPUs=2 RealMemory=2000
PartitionName=p Nodes=node01 Default=YES MaxTime=INFINITE State=UP
KillWait=2
EOF
cluster_start "$CONF"
rm -f "$CONF"
chmod 755 "$DIR" "$WORK"
NODELOG=$DIR/log/node01.log
wait_for 10 grep -q "cgroup=" "$NODELOG"
cg=$(grep -o 'cgroup=.*' "$NODELOG" | head -1)
case $cg in
cgroup=none*) skip_all "${cg#cgroup=none }" ;;
cgroup=v1* | cgroup=v2*) ok "sluiced logs the hierarchy in use: ${cg%% (*}" ;;
*) not_ok "sluiced logs the hierarchy in use"; echo "# $cg" ;;
esac

ended_in_log() { grep -q "job=$1 state=ended" "$NODELOG"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }

# --- a job in its own cgroup -------------------------------------------------
id=$(submit --mem=100M --wrap 'cat /proc/self/cgroup')
wait_for 15 job_ended "$id"
like "$(cat "slurm-$id.out")" "/sluice/node01-[0-9a-f]{8}/job_$id\$" \
    "the job runs in sluice/node01-HASH/job_$id"

# --- memory: over the limit is OOM-killed, and the node says so -----------------
cat >hog.sh <<'EOS'
#!/bin/sh
# one line without a newline: tail holds all of it in memory
head -c 1000M /dev/zero | tail >/dev/null
echo "tail status $?"
EOS
id=$(submit --mem=32M hog.sh)
wait_for 30 job_ended "$id"
wait_for 5 ended_in_log "$id"
like "$(grep "job=$id state=ended" "$NODELOG")" "oom=true" \
    "a job over --mem=32M is OOM-killed: the node reports oom=true"
like "$(cat "slurm-$id.out")" "tail status (137|9)" \
    "the job's hog was killed by SIGKILL"
is "$(job_state "$id")" OUT_OF_MEMORY "the job is recorded OUT_OF_MEMORY"
like "$(squeue -h -t all -j "$id" -o %t)" "OOM" "squeue shows it as OOM"
id=$(submit --mem=64M --wrap 'head -c 10M /dev/zero | tail >/dev/null; echo fine')
wait_for 15 job_ended "$id"
is "$(job_state "$id")/$(cat "slurm-$id.out")" "COMPLETED/fine" \
    "a job within its memory completes"

# --- cancel: nothing of a double-forking job survives -------------------------
cat >escape.sh <<'EOS'
#!/bin/sh
setsid sh -c 'echo $$ >esc1.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
(nohup sh -c 'echo $$ >esc2.pid; exec sleep 301' </dev/null >/dev/null 2>&1 &)
sleep 600
EOS
id=$(submit escape.sh)
wait_for 15 test -s esc1.pid
wait_for 15 test -s esc2.pid
e1=$(cat esc1.pid 2>/dev/null)
e2=$(cat esc2.pid 2>/dev/null)
if alive "${e1:-0}" && alive "${e2:-0}"; then
    ok "the job's setsid and nohup sleeps run (pids $e1 $e2)"
else
    not_ok "the job's setsid and nohup sleeps run"
fi
scancel "$id"
wait_for 20 job_ended "$id"
is "$(job_state "$id")" CANCELLED "the job is cancelled"
wait_for 5 eval '! alive "${e1:-0}" && ! alive "${e2:-0}"'
if alive "${e1:-0}" || alive "${e2:-0}"; then
    not_ok "nothing of the cancelled job is left"
    ps -o pid,ppid,pgid,sid,cmd -p "$e1,$e2" | sed 's/^/#   /'
    kill -9 "${e1:-0}" "${e2:-0}" 2>/dev/null
else
    ok "nothing of the cancelled job is left: its escaped sleeps are gone"
fi

# --- a job that ends while its daemon runs on --------------------------------
id=$(submit --wrap 'setsid sh -c "echo \$\$ >daemon.pid; exec sleep 300" </dev/null >/dev/null 2>&1 & sleep 1; echo done')
wait_for 15 job_ended "$id"
d=$(cat daemon.pid 2>/dev/null)
wait_for 5 eval '! alive "${d:-0}"'
if [ -n "$d" ] && ! alive "$d"; then
    ok "a job's daemon dies with the job ($(job_state "$id"))"
else
    not_ok "a job's daemon dies with the job (pid ${d:-?})"
    kill -9 "${d:-0}" 2>/dev/null
fi

# --- CPUs --------------------------------------------------------------------
if [ "$(nproc)" -ge 2 ]; then
    id=$(submit -c 1 --wrap 'grep Cpus_allowed_list /proc/self/status')
    wait_for 15 job_ended "$id"
    like "$(cat "slurm-$id.out")" "^Cpus_allowed_list:[[:space:]]+[0-9]+\$" \
        "a job of one CPU is pinned to one CPU"
else
    skip "CPU pinning: this machine has one CPU"
fi

finish
