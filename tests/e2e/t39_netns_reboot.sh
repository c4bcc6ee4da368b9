#!/usr/bin/env bash
# A node "reboots" (netns.sh: every process of the machine killed at once,
# its cgroups gone, a new boot id), once quickly, its spool kept (it
# registers again within SlurmdTimeout, with its jobs of the earlier boot
# ended "node_lost"), and once slowly, its spool gone too (it went DOWN
# first).  The controller converges: the node registers again, its jobs
# that may be requeued run again (once the node vouched for the lost run),
# the --no-requeue ones end NODE_FAIL, and accounting shows the run lost
# with the node.  Before the node's new sluiced starts, processes of
# someone else are made with the process group ids the lost jobs had
# (ns_last_pid), which the kept spool still names: none is signalled.
. "$(dirname "$0")/netns.sh"

TIMEOUT=8
netns_start "node01 node02 node03" <<EOF
ClusterName=netns
SlurmdTimeout=$TIMEOUT
KillWait=2
NodeName=node[01-03] CPUs=2 RealMemory=2000
PartitionName=all Nodes=node[01-03] Default=YES MaxTime=INFINITE
EOF
netns_recorder

# decoys PGID...: on node02 (booted, its sluiced not started yet), a
# process leading each process group id given, "sleep 3600"; prints
# "PID PGID" for each (PID as this shell sees it, PGID as node02 does).
decoys() {
    local g p
    for g in "$@"; do
        netns_on node02 bash -c '
            echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid
            setsid sleep 3600 </dev/null >/dev/null 2>&1 &' _ "$g"
    done
    for p in $(netns_procs node02); do
        [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 3600 " ] &&
            echo "$p $(awk '/^NSpgid:/ {print $NF}' "/proc/$p/status")"
    done
}

# pgid_of JOB: the process group of JOB's script on node02, as its
# supervisor recorded it (the leader, supervisor.pid's second line).
pgid_of() {
    sed -n '2s/ .*//p' "$DIR/spool/node02/job.$1/supervisor.pid"
}

reboot_case() {
    local how=$1 r n pg dec t0
    scontrol update NodeName=node01,node03 State=DRAIN Reason=placing
    r=$(submit -J "r-$how" -o /dev/null runrec.sh)
    n=$(submit -J "n-$how" --no-requeue -o /dev/null runrec.sh)
    wait_for 20 started "$r" && wait_for 20 started "$n"
    scontrol update NodeName=node01,node03 State=RESUME
    is "$(squeue -h -j "$r,$n" -o %N | sort -u)" node02 "$how: jobs $r and $n run on node02"
    pg=$(pgid_of "$r"; pgid_of "$n")
    is "$(echo "$pg" | grep -c '^[0-9][0-9]*$')" 2 \
        "$how: the two jobs' process groups are recorded"
    t0=$(date +%s)
    if [ "$how" = quick ]; then
        netns_poweroff node02 keep
        is "$(pgid_of "$r")" "$(echo "$pg" | head -1)" \
            "quick: node02 is off, its spool kept"
    else
        netns_poweroff node02
        [ -e "$DIR/spool/node02" ] && not_ok "slow: node02's spool is gone" ||
            ok "slow: node02 is off, its spool gone"
    fi
    is "$(netns_procs node02)" "" "$how: no process of node02 is left"
    if [ "$how" = slow ]; then
        wait_for $((TIMEOUT + 10)) is_down node02
        is "$(node_state node02)" "down*" "slow: node02 goes down (not responding)"
        is "$(squeue -h -j "$r" -o '%T %r')" "PENDING NodeDown" \
            "slow: its requeued job waits for node02's word"
        is "$(runs_of "$r")" 1 "slow: and does not start elsewhere meanwhile"
    fi
    netns_boot node02
    dec=$(decoys $pg)
    is "$(echo "$dec" | cut -d' ' -f2 | sort -n | tr '\n' ' ')" \
        "$(echo "$pg" | sort -n | tr '\n' ' ')" \
        "$how: processes of someone else now lead the lost jobs' process groups"
    dec=$(echo "$dec" | cut -d' ' -f1)
    netns_daemon_start node02
    wait_for 30 eval "! is_down node02 && [ \"\$(job_state $n)\" = NODE_FAIL ]"
    like "$(node_state node02)" '^(idle|mix|alloc)$' "$how: node02 registers again after its reboot"
    is "$(job_state "$n")" NODE_FAIL "$how: the --no-requeue job ends NODE_FAIL"
    wait_for 30 started "$r" 2
    is "$(job_state "$r") $(runs_of "$r")" "RUNNING 2" "$how: the other runs again"
    like "$(scontrol show job "$r")" "Restarts=1" "$how: restart count 1"
    touch "stop-$r"
    wait_for 20 job_ended "$r"
    is "$(job_state "$r")" COMPLETED "$how: and completes"
    is "$(sacct -n -P -D -X -j "$r" -o State | tr '\n' ' ')" "NODE_FAIL COMPLETED " \
        "$how: sacct -D: the run lost with the node, then the one that completed"
    is "$(sacct -n -P -X -j "$n" -o State)" NODE_FAIL "$how: sacct: NODE_FAIL"
    if [ "$how" = quick ]; then
        like "$(grep "job=$r " "$DIR/log/node02.log" | grep 'gone without a status')" \
            "without signalling anything" \
            "quick: the new sluiced reports its earlier boot's job without signalling it"
    fi
    sleep 1 # a kill sent late would have arrived by now
    for p in $dec; do
        if alive "$p"; then
            ok "$how: decoy $p (someone else's process group) was not signalled"
        else
            not_ok "$how: decoy $p (someone else's process group) was not signalled"
        fi
    done
    kill $dec 2>/dev/null
    echo "# $how: $(($(date +%s) - t0)) s from power-off to the requeued job's end"
}
reboot_case quick
reboot_case slow

is "$(netns_overlaps runs.txt)" "" "no two runs of a job ever overlapped"
like "$(grep 'node=node02 registered' "$DIR/log/sluicectld.log" | tail -1)" \
    "state=(IDLE|MIXED|ALLOCATED)" "the controller logs node02's registration"
netns_gone
finish
