#!/usr/bin/env bash
# sluiced never signals a process group it cannot prove is its job's
# (audit finding 10).  The audit's repro: a job's supervisor and group die
# while sluiced is down ("the machine went down") and the recorded pgid now
# belongs to someone else's process group; the restarted sluiced reports
# the job ended and leaves that group alone.  Then the same with a spool
# from another boot (boot_id differs): ended without signalling anything.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to run a process as nobody"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
DECOYS=
cleanup_decoys() {
    for p in $DECOYS; do kill -9 "$p" 2>/dev/null; done
    cluster_stop
}
trap cleanup_decoys EXIT

# crash_node04 JOB: stop sluiced on node04, then kill the job's supervisor
# and process group as a crash of the machine would.
crash_node04() {
    local d=$DIR/spool/node04/job.$1 npid
    npid=$(cat "$DIR/pids/node04.pid")
    kill "$npid"
    wait_for 10 eval "! kill -0 $npid 2>/dev/null"
    # supervisor.pid: the supervisor, then the job's leader (its pgid)
    kill -9 "$(sed -n '1s/ .*//p' "$d/supervisor.pid")"
    kill -9 -- "-$(sed -n '2s/ .*//p' "$d/supervisor.pid")"
}

# decoy: a process group of user nobody; prints its pgid.
decoy() {
    local tag=$((3600 + RANDOM)) p
    runuser -u nobody -- setsid sleep "$tag" </dev/null >/dev/null 2>&1 &
    wait_for 5 pgrep -u nobody -x -f "sleep $tag"
    p=$(pgrep -u nobody -x -f "sleep $tag")
    DECOYS="$DECOYS $p"
    echo "$p"
}

for case in pgid boot; do
    j=$(sbatch --parsable -p dev -t 5 --no-requeue --wrap 'sleep 600')
    wait_for 10 sh -c "squeue -h -j $j -o %T | grep -q RUNNING"
    [ -s "$DIR/spool/node04/job.$j/supervisor.pid" ] || sleep 1
    is "$(job_state "$j")" RUNNING "$case: the job runs"
    crash_node04 "$j"
    victim=$(decoy)
    # the recorded leader, so the job's pgid, is now someone else's
    sed -i "2s/^[0-9]*/$victim/" "$DIR/spool/node04/job.$j/supervisor.pid"
    if [ "$case" = boot ]; then
        # the boot id is supervisor.pid's third line
        sed -i '3s/.*/00000000-0000-0000-0000-000000000000/' \
            "$DIR/spool/node04/job.$j/supervisor.pid"
    fi
    sluice up --dir "$DIR" >/dev/null 2>&1
    wait_for 20 job_ended "$j"
    like "$(job_state "$j")" "$([ "$case" = boot ] && echo NODE_FAIL || echo FAILED)" \
        "$case: the restarted sluiced reports the job ended ($([ "$case" = boot ] && echo lost with the machine || echo killed))"
    sleep 1
    if alive "$victim"; then
        ok "$case: nobody's process group $victim was not signalled"
    else
        not_ok "$case: nobody's process group $victim was not signalled"
    fi
done
like "$(grep 'gone without a status' "$DIR/log/node04.log")" \
    "without signalling anything" "the log says a spool of another boot is only recorded"
like "$(grep 'boot_id' "$DIR/log/node04.log")" "boot_id: 0{8}-" \
    "and names the boot ids"
finish
