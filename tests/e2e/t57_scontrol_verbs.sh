#!/usr/bin/env bash
# scontrol's own verbs: requeue from outside and from inside the job (as
# PyTorch Lightning and submitit call it), the output appended across the
# requeue, requeuehold, a --no-requeue job refused with Slurm's message;
# ping; show config; reconfigure adding a partition and refusing a broken
# file (the old configuration kept); top; update NodeName with a reason
# recording who and when; the log file reopened on SIGHUP after a rotation.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/verbs.conf"

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }
field() { scontrol show job "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2-; }
restarts_of() { field "$1" Restarts; }

# --- requeue from outside: killed, PENDING again, runs again, appends ------
j1=$(submit -J rq -o rq.out --wrap 'echo run $SLURM_RESTART_COUNT; sleep 300')
wait_for 15 grep -q "run" rq.out
scontrol requeue "$j1"
is "$?" 0 "scontrol requeue of a running job succeeds"
wait_for 15 grep -q "run 1" rq.out
is "$(sed 's/ *$//' rq.out)" "run
slurmstepd: error: *** JOB $j1 ON node01 CANCELLED AT $(sed -n 2p rq.out | sed 's/.*CANCELLED AT \([^ ]*\).*/\1/') DUE TO JOB REQUEUE ***
run 1" "the output is appended across the requeue, with Slurm's line"
is "$(restarts_of "$j1")" 1 "Restarts=1 after one requeue"
scancel "$j1"

# --- requeue from inside the job itself (its signal handler's way) --------
cat >inside.sh <<'SH'
#!/bin/bash
echo "start $SLURM_RESTART_COUNT"
if [ -z "$SLURM_RESTART_COUNT" ]; then
    scontrol requeue "$SLURM_JOB_ID"
    sleep 300
fi
echo done
SH
j2=$(submit -J inside -o inside.out inside.sh)
wait_for 30 job_ended "$j2"
is "$(state_of "$j2")" COMPLETED "a job that requeued itself completes on its second run"
is "$(grep -v slurmstepd inside.out | sed 's/ *$//')" "start
start 1
done" "both runs' output is in its file"

# --- requeuehold: held after the requeue, released by its owner -----------
j3=$(submit -J rqh -o rqh.out --wrap 'sleep 300')
wait_for 15 is_state "$j3" RUNNING
scontrol requeuehold "$j3"
wait_for 15 is_state "$j3" PENDING
is "$(state_of "$j3") $(field "$j3" Reason)" "PENDING JobHeldUser" \
    "requeuehold: PENDING, held (JobHeldUser)"
scontrol release "$j3"
wait_for 15 is_state "$j3" RUNNING
is "$(state_of "$j3")" RUNNING "released, it runs again"
scancel "$j3"

# --- refusals ---------------------------------------------------------------
j4=$(submit --no-requeue -J norq --wrap 'sleep 300')
wait_for 15 is_state "$j4" RUNNING
out=$(scontrol requeue "$j4" 2>&1)
rc=$?
is "$rc $out" "1 Requested operation is presently disabled for job $j4" \
    "a --no-requeue job is refused with Slurm's message"
is "$(state_of "$j4")" RUNNING "and keeps running"
scancel "$j4"
j5=$(submit --hold --wrap true)
is "$(scontrol requeue "$j5" 2>&1)" "Job is pending execution for job $j5" \
    "a pending job is refused"
scancel "$j5"

# --- top: ahead of the user's other pending jobs ---------------------------
scontrol update NodeName=node[01-02] State=DRAIN Reason="maintenance window"
ja=$(submit --wrap true)
jb=$(submit --wrap true)
scontrol top "$jb"
is "$?" 0 "scontrol top succeeds"
pa=$(squeue -h -j "$ja" -o %Q)
pb=$(squeue -h -j "$jb" -o %Q)
ok_top=0
[ "$pb" -gt "$pa" ] && ok_top=1
is "$ok_top" 1 "the topped job's priority is above its sibling's ($pb > $pa)"
scancel "$ja" "$jb"

# --- update NodeName: reason with who and when -----------------------------
node_json=$(sluice show node node01 --json=sluice)
like "$node_json" '"reason_user": *"[a-z]' "the node records who set the reason"
like "$node_json" '"reason_time": *[0-9]{9,}' "and when"
like "$(scontrol show node node01)" "Reason=maintenance window" "scontrol show node has the reason"
scontrol update NodeName=node[01-02] State=RESUME
wait_for 10 eval '[ "$(sinfo -h -n node01 -o %t)" = idle ]'
is "$(sinfo -h -n node01 -o %t)" idle "State=RESUME: idle again"

# --- ping --------------------------------------------------------------------
out=$(scontrol ping)
like "$? $out" '^0 Slurmctld\(primary\) at [^ ]+ is UP$' "scontrol ping: UP, exit 0"

# --- show config -------------------------------------------------------------
out=$(scontrol show config)
like "$(echo "$out" | head -1)" '^Configuration data as of [0-9]{4}-[0-9]{2}-[0-9]{2}T' \
    "show config: Slurm's header"
like "$out" '
ClusterName             = e2e-verbs
' "show config: Key = value, the key in 23 columns"
like "$out" 'KillWait                = 2' "show config: KillWait"
like "$out" "SLURM_CONF              = $SLUICE_CONF" "show config: SLURM_CONF"

# --- reconfigure ---------------------------------------------------------------
cp "$SLUICE_CONF" conf.orig
echo "PartitionName=extra Nodes=node01 State=UP" >>"$SLUICE_CONF"
out=$(scontrol reconfigure 2>&1)
is "$?" 0 "reconfigure with a new partition succeeds"
like "$out" "partition extra added" "and reports what changed"
wait_for 10 eval 'sinfo -h -p extra -o %P | grep -q extra'
is "$(sinfo -h -p extra -o %P | sort -u)" extra "the new partition is there without a restart"
jx=$(submit -p extra --wrap true)
wait_for 20 job_ended "$jx"
is "$(state_of "$jx")" COMPLETED "a job runs in the new partition"

# the clients keep a good copy: they read the file too
cp "$SLUICE_CONF" client.conf
echo "PartitionName=broken Nodes=node[01-02 MaxTime=banana" >>"$SLUICE_CONF"
out=$(SLUICE_CONF=$WORK/client.conf scontrol reconfigure 2>&1)
rc=$?
is "$rc" 1 "a broken file is refused"
like "$out" "reconfigure refused: .*sluice.conf:[0-9]+:[0-9]+: error: Nodes=node\[01-02: bad hostlist" \
    "with the file's error and line"
is "$(SLUICE_CONF=$WORK/client.conf sinfo -h -p extra -o %P | sort -u)" extra \
    "the running configuration stays"
cp conf.orig "$SLUICE_CONF"
sed -i 's/^KillWait=2/KillWait=2\nSlurmctldPort=1/' "$SLUICE_CONF"
out=$(scontrol reconfigure 2>&1)
like "$out" "SlurmctldPort .*restart" "a key that needs a restart is named and refused"
cp conf.orig "$SLUICE_CONF"
out=$(scontrol reconfigure 2>&1)
like "$out" "partition extra removed" "back to the first file: the partition goes"
like "$(scontrol ping)" "is UP" "the controller is up after all this"

# --- the log file rotated: SIGHUP reopens it (logrotate's postrotate) ----------
log=$DIR/log/sluicectld.log
mv "$log" "$log.1"
kill -HUP "$(cat "$DIR/pids/sluicectld.pid")"
wait_for 10 grep -q 'log reopened' "$log"
like "$(cat "$log" 2>&1)" "SIGHUP: log reopened" \
    "SIGHUP: the controller writes a new log file where the old one was"
is "$(stat -c %a "$log" 2>&1)" 600 "... private, as the first one"
jl=$(submit --wrap true)
wait_for 20 job_ended "$jl"
wait_for 10 grep -q "job=$jl state=COMPLETED" "$log"
like "$(cat "$log")" "job=$jl state=COMPLETED" "... and goes on writing there"
if grep -q "job=$jl " "$log.1"; then
    not_ok "... and nothing more into the rotated file"
else
    ok "... and nothing more into the rotated file"
fi

finish
