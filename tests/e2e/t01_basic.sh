#!/usr/bin/env bash
# The basic life of batch jobs on the seed's four-node cluster, through
# the Slurm-named commands: sbatch, squeue, scontrol, sinfo, scancel; the
# errors a user meets; and sluice up restarting only what is missing.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# --- the cluster ---------------------------------------------------------
nodes=$(sinfo -N -h -o '%N %t' | sort | tr '\n' ' ')
is "$nodes" "node01 idle node02 idle node03 idle node04 idle " \
    "sinfo -N: four idle nodes"
like "$(sinfo | head -3)" '^backtest\* +up 3-00:00:00 +2 +idle node\[02-03\]$' \
    "sinfo: the default partition is marked and grouped"

# --- a job with directives: queued, running, output, exit code -----------
cat >job.sh <<'EOF'
#!/bin/bash
#SBATCH --job-name=hello
#SBATCH -p backtest
#SBATCH --output=hello-%j.out
echo "hello from $SLURM_JOB_ID on $SLURM_JOB_NODELIST ($SLURM_JOB_PARTITION) args $*"
while [ ! -e go ]; do sleep 0.05; done
exit 3
EOF
out=$(sbatch job.sh one two)
like "$out" '^Submitted batch job [0-9]+$' "sbatch prints Submitted batch job N"
id=${out##* }
wait_for 10 test "$(job_state "$id")" = RUNNING
like "$(squeue -h -j "$id")" "^ +$id +backtest +hello +[a-z0-9_-]+ +R +[0-9:]+ +1 node0[23]$" \
    "squeue shows the job running on a backtest node"
like "$(squeue)" "^ +JOBID PARTITION +NAME +USER ST +TIME +NODES NODELIST\(REASON\)" \
    "squeue prints squeue's header"
touch go
wait_for 10 job_ended "$id"
is "$(job_state "$id")" FAILED "a job that exits 3 ends FAILED"
like "$(scontrol show job "$id")" "ExitCode=3:0" "scontrol show job has ExitCode=3:0"
like "$(cat "hello-$id.out" 2>&1)" "^hello from $id on node0[23] \(backtest\) args one two$" \
    "the output file has what the job printed, with SLURM_* set"
is "$(squeue -h -j "$id" -o '%i %t')" "" "squeue -j keeps squeue's default states: a finished job is not shown"
is "$(squeue -h -t all -j "$id" -o '%i %t')" "$id F" "squeue -t all -j shows a finished job"
is "$(squeue -h -o %i | grep -c "^$id$")" 0 "plain squeue hides finished jobs"

# --- cancel a pending job and a running one ------------------------------
pend=$(submit -H -p dev --wrap 'true')
is "$(job_state "$pend")" PENDING "sbatch -H leaves the job pending"
scancel "$pend"
wait_for 10 job_ended "$pend"
is "$(job_state "$pend")" CANCELLED "scancel of a pending job"

cat >trap.sh <<'EOF'
#!/bin/bash
trap 'echo got SIGTERM >term.marker; exit 143' TERM
touch started.marker
while :; do sleep 0.05; done
EOF
run=$(submit -p dev -o trap.out trap.sh)
wait_for 10 test -e started.marker
scancel "$run"
wait_for 10 job_ended "$run"
is "$(job_state "$run")" CANCELLED "scancel of a running job"
is "$(cat term.marker 2>&1)" "got SIGTERM" "the running job got SIGTERM first"
like "$(scancel 999999 2>&1)" 'error: Kill job error on job id 999999: ' \
    "scancel of an unknown job says so"

# --- stdin, --export, hold/release, update, filters, drain ---------------
id=$(printf '#!/bin/sh\necho "FOO=$FOO BAR=$BAR"\n' |
    FOO=bar BAR=baz submit -p dev --export=NONE,FOO -o env.out)
wait_for 10 job_ended "$id"
is "$(cat env.out 2>&1)" "FOO=bar BAR=" "a script from stdin; --export=NONE,FOO passes FOO only"
h1=$(submit -H -p dev -J held-dev --wrap true)
h2=$(submit -H -p prod -J held-prod --wrap true)
is "$(squeue -h -p prod -t PD -o '%i %j %r')" "$h2 held-prod JobHeldUser" \
    "squeue -p -t selects, %r shows why a job waits"
is "$(squeue -h -n held-dev,held-prod -o %i | sort -n | tr '\n' ' ')" "$h1 $h2 " \
    "squeue -n selects by name"
scontrol update JobId="$h1" TimeLimit=10 JobName=renamed
is "$(squeue -h -j "$h1" -o '%j %l')" "renamed 10:00" "scontrol update sets a time limit and name"
scontrol release "$h1" "$h2"
wait_for 10 job_ended "$h1" && wait_for 10 job_ended "$h2"
is "$(job_state "$h1") $(job_state "$h2")" "COMPLETED COMPLETED" \
    "scontrol release lets held jobs run"
scontrol update NodeName=node04 State=DRAIN Reason="e2e maintenance"
like "$(sinfo -R -h)" '^e2e maintenance +[^ ]+ +[0-9T:-]+ node04$' "sinfo -R lists the drained node"
is "$(sinfo -h -p dev -o %t)" "drain" "sinfo shows it drained"
scontrol update NodeName=node04 State=RESUME
is "$(sinfo -h -p dev -o %t)" "idle" "State=RESUME brings it back"

# --- mistakes get one clear line and a non-zero exit ---------------------
msg=$(sbatch -p nosuch --wrap true 2>&1) && not_ok "unknown partition accepted" ||
    like "$msg" '^sbatch: error: Batch job submission failed: .*nosuch' \
        "sbatch -p nosuch fails with the partition's name"
msg=$(sbatch -t 1:61 --wrap true 2>&1) && not_ok "bad time accepted" ||
    like "$msg" '^sbatch: error: --time=1:61: bad time' "sbatch -t 1:61 fails"
printf 'echo no interpreter\n' >plain.sh
msg=$(sbatch plain.sh 2>&1) && not_ok "script without #! accepted" ||
    is "$msg" "sbatch: error: This does not look like a batch script.  The first line must start with #! followed by the path to an interpreter." \
        "a script without #! is refused in Slurm's words"
msg=$(sbatch --frobnicate x 2>&1) && not_ok "unknown option accepted" ||
    like "$msg" "^sbatch: error: unrecognized option '--frobnicate'" \
        "an unknown option is named"
sed -e 's/^SlurmctldPort=.*/SlurmctldPort=1/' \
    -e "s#^StateSaveLocation=.*#StateSaveLocation=$DIR/nowhere#" \
    "$SLUICE_CONF" >unreachable.conf
msg=$(SLUICE_CONF=$PWD/unreachable.conf squeue 2>&1) && not_ok "squeue without controller" ||
    is "$msg" "squeue: error: cannot reach sluicectld at 127.0.0.1:1: Connection refused" \
        "an unreachable controller is one clear line"

# --- the daemons' CPU weight (SluiceDaemonNice, default -10) -------------
# Each daemon's autogroup runs at nice -10 (sched(7)), so that the jobs,
# each a session and an autogroup of its own, do not starve it; a job's
# autogroup stays at 0.  Where this cannot be set (not root, or a kernel
# without autogroups) the daemons log why instead.
if [ "$(id -u)" = 0 ] && [ -w /proc/self/autogroup ] &&
    [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" != 0 ]; then
    like "$(cat "/proc/$(cat "$DIR/pids/sluicectld.pid")/autogroup")" ' nice -10$' \
        "the controller's autogroup runs at nice -10"
    like "$(cat "/proc/$(cat "$DIR/pids/node02.pid")/autogroup")" ' nice -10$' \
        "a node daemon's autogroup runs at nice -10"
    ag=$(sbatch --parsable -p backtest -o ag.out --wrap 'cat /proc/self/autogroup; cut -d" " -f19 /proc/$$/stat')
    wait_for 10 job_ended "$ag"
    like "$(tr '\n' ' ' <ag.out)" '^/autogroup-[0-9]+ nice 0 +0 $' \
        "a job's autogroup and its own nice stay at 0"
    echo SluiceDaemonNice=-5 >>"$SLUICE_CONF"
    like "$(scontrol reconfigure 2>&1)" 'SluiceDaemonNice set: -5' \
        "scontrol reconfigure names the new SluiceDaemonNice"
    like "$(cat "/proc/$(cat "$DIR/pids/sluicectld.pid")/autogroup")" ' nice -5$' \
        "the controller applies it at once"
else
    like "$(cat "$DIR"/log/sluicectld.log)" 'SluiceDaemonNice=-10 not applied: ' \
        "where the autogroup's nice cannot be set, the controller says why"
fi

# --- sluice up again restarts only what is missing -----------------------
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
node_pid=$(cat "$DIR/pids/node03.pid")
kill -9 "$node_pid"
wait_for 5 eval "! alive $node_pid"
out=$(sluice up --dir "$DIR" 2>"$DIR/up2.err")
is "$out" "export SLUICE_CONF=$SLUICE_CONF" "sluice up again prints the same export line"
is "$(cat "$DIR/pids/sluicectld.pid")" "$ctld_pid" "the running controller is kept"
new_pid=$(cat "$DIR/pids/node03.pid")
if [ "$new_pid" != "$node_pid" ] && alive "$new_pid"; then
    ok "the killed node daemon is started again"
else
    not_ok "the killed node daemon is started again"
fi
like "$(sinfo -N -h -o '%N %t' | grep node03)" '^node03 idle$' "node03 is back"

# --- a daemon found running that exits while sluice up waits (as one does
# just after a kill -9): sluice up starts it --------------------------------
# Stand-ins with the daemons' command lines take their place until sluice up
# has said it found them running.
stand_in() { # PROG NAME ARGS...: a process whose command line reads as PROG ARGS
    local prog=$1
    shift
    (exec -a "$E2E_BIN/$prog" bash -c \
        'until grep -qs "$1 is running" "$2"; do sleep 0.05; done; :' \
        "$prog" "$1" "$DIR/up3.err" "$@") </dev/null >/dev/null 2>&1 &
}
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
node_pid=$(cat "$DIR/pids/node02.pid")
kill -9 "$ctld_pid" "$node_pid"
wait_for 5 eval "! alive $ctld_pid && ! alive $node_pid"
stand_in sluicectld sluicectld -f "$SLUICE_CONF" -D
fake_ctld=$!
stand_in sluiced node02 -N node02 -f "$SLUICE_CONF" -D
fake_node=$!
echo "$fake_ctld" >"$DIR/pids/sluicectld.pid"
echo "$fake_node" >"$DIR/pids/node02.pid"
out=$(sluice up --dir "$DIR" 2>"$DIR/up3.err")
is "$out" "export SLUICE_CONF=$SLUICE_CONF" \
    "sluice up succeeds when the daemons it found running exit meanwhile"
like "$(tr '\n' ' ' <"$DIR/up3.err")" \
    "sluicectld is running \\(pid $fake_ctld\\) .*sluicectld has exited since; starting it" \
    "it says the controller it found has exited and starts one"
like "$(cat "$DIR/up3.err")" "node02 has exited since; starting it" \
    "and the same of a node daemon"
new_pid=$(cat "$DIR/pids/sluicectld.pid")
if [ "$new_pid" != "$fake_ctld" ] && alive "$new_pid"; then
    ok "a new controller runs"
else
    not_ok "a new controller runs"
    sed 's/^/#   /' "$DIR/up3.err"
fi
wait_for 10 eval "sinfo -N -h -o '%N %t' | grep -q '^node02 idle$'"
like "$(sinfo -N -h -o '%N %t' | grep node02)" '^node02 idle$' "node02 is back"
kill "$fake_ctld" "$fake_node" 2>/dev/null
wait "$fake_ctld" "$fake_node" 2>/dev/null
ctld_pid=$new_pid

# --- a node daemon killed that cannot exit yet: sluice up waits for it ----
# A process in a frozen cgroup v1 freezer keeps a SIGKILL pending, its
# command line and its pid file's lock until it is thawed (as one stuck in
# the kernel does for a while).  sluice up must neither take it for running
# nor start a second one that cannot lock the pid file.
fz=/sys/fs/cgroup/freezer/sluice-e2e-t01-$$
if [ -w /sys/fs/cgroup/freezer/cgroup.procs ] && mkdir "$fz" 2>/dev/null; then
    node_pid=$(cat "$DIR/pids/node03.pid")
    echo "$node_pid" >"$fz/cgroup.procs"
    echo FROZEN >"$fz/freezer.state"
    wait_for 5 grep -q FROZEN "$fz/freezer.state"
    kill -9 "$node_pid"
    sluice up --dir "$DIR" >/dev/null 2>"$DIR/up4.err" &
    up=$!
    wait_for 10 grep -q "node03 (pid $node_pid) was killed" "$DIR/up4.err"
    sleep 0.5
    echo THAWED >"$fz/freezer.state"
    wait "$up"
    is "$?" 0 "sluice up succeeds when a daemon it finds killed exits late"
    like "$(cat "$DIR/up4.err")" \
        "node03 \\(pid $node_pid\\) was killed and has not exited yet; waiting" \
        "it says it waits for the killed node daemon"
    new_pid=$(cat "$DIR/pids/node03.pid")
    if [ "$new_pid" != "$node_pid" ] && alive "$new_pid"; then
        ok "and starts node03's sluiced again once that one is gone"
    else
        not_ok "and starts node03's sluiced again once that one is gone"
        sed 's/^/#   /' "$DIR/up4.err"
    fi
    wait_for 10 eval "sinfo -N -h -o '%N %t' | grep -q '^node03 idle$'"
    like "$(sinfo -N -h -o '%N %t' | grep node03)" '^node03 idle$' \
        "node03 is back"
    echo THAWED >"$fz/freezer.state" 2>/dev/null
    rmdir "$fz"
else
    ok "# SKIP no cgroup v1 freezer to write here (killed-late daemon)"
fi

# --- sluice down ---------------------------------------------------------
sluice down --dir "$DIR" 2>/dev/null
left=$(ls "$DIR/pids")
is "$left" "" "sluice down removes every pid file"
if alive "$ctld_pid"; then
    not_ok "sluice down stops the controller"
else
    ok "sluice down stops the controller"
fi
finish
