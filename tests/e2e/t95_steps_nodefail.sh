#!/usr/bin/env bash
# A node that fails under running steps (its sluiced and everything under
# it stopped with SIGSTOP, as a frozen host; SlurmdTimeout=4): a job
# without --no-kill (and --no-requeue) ends NODE_FAIL with its step; a
# --no-kill job loses the node and goes on, its `srun -k` step goes on on
# the other node and srun reports the node's failure, its plain step ends
# NODE_FAIL, and a later step runs on what is left.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/nodefail.conf"

STOPPED=
# The stopped processes go on again at the end (before the daemons stop).
resume_stopped() {
    [ -n "$STOPPED" ] && kill -CONT $STOPPED 2>/dev/null
    STOPPED=
}
trap 'resume_stopped; cluster_stop' EXIT

# tree PID: PID and all of its descendants.
tree() {
    local p
    echo "$1"
    for p in $(ps -o pid= --ppid "$1"); do
        tree "$p"
    done
}

# started FILE N: FILE has N "started" lines.
started() {
    [ "$(grep -c '^started' "$1" 2>/dev/null)" -ge "$2" ]
}

submit_job() {
    local name=$1
    shift
    printf '%s\n' "$@" >"$name.sh"
    sbatch --parsable -w node01,node02 -N 2 -n 4 -o "$name.out" \
        "${SBATCH_EXTRA[@]}" "$name.sh"
}

# A: no --no-kill (and --no-requeue).  The step and the job end NODE_FAIL.
SBATCH_EXTRA=(--no-requeue)
a=$(submit_job plain '#!/bin/bash' \
    'srun -N 2 -n 2 bash -c "echo started \$SLURMD_NODENAME; sleep 60"' \
    'echo "srun rc=$?"')
# B: --no-kill job, srun -k step: it goes on on node01; then a new step.
SBATCH_EXTRA=(-k)
b=$(submit_job keep '#!/bin/bash' \
    'srun -k -N 2 -n 2 bash -c "echo started \$SLURMD_NODENAME; sleep 15; echo survived \$SLURMD_NODENAME" 2>keep.err' \
    'echo "first rc=$?"' \
    'srun -N 1 -n 1 bash -c "echo second on \$SLURMD_NODENAME"' \
    'echo "second rc=$?"')
# C: --no-kill job, plain step: the step ends NODE_FAIL, the job goes on.
c=$(submit_job keepjob '#!/bin/bash' \
    'srun -N 2 -n 2 bash -c "echo started \$SLURMD_NODENAME; sleep 60" 2>keepjob.err' \
    'echo "plain rc=$?"' \
    'sleep 2' \
    'srun -N 1 -n 1 bash -c "echo then on \$SLURMD_NODENAME"')

for f in plain keep keepjob; do
    if ! wait_for 30 started "$f.out" 2; then
        not_ok "the 2-node steps started"
        exit 1
    fi
done
ok "three 2-node jobs run steps on node01 and node02"

# node02 freezes: its daemon, its step supervisors and their tasks.
STOPPED=$(tree "$(cat "$DIR/pids/node02.pid")" | tr '\n' ' ')
kill -STOP $STOPPED
wait_for 20 eval "sinfo -h -n node02 -o %T | grep -qi down"
like "$(sinfo -h -n node02 -o %T)" "down" "node02 is DOWN after SlurmdTimeout"

wait_for 20 job_ended "$a"
is "$(job_state "$a")" NODE_FAIL "a job without --no-kill ends NODE_FAIL"
is "$(sacct -n -P -j "$a.0" -o State | head -1)" NODE_FAIL \
    "... and its step NODE_FAIL"

wait_for 20 eval "grep -q 'plain rc=' keepjob.out"
is "$(job_state "$c")" RUNNING "a --no-kill job goes on after the node failed"
like "$(squeue -h -j "$c" -o %N)" "^node01$" "... on node01 alone (NodeList)"
like "$(cat keepjob.out)" "plain rc=[1-9]" "its plain step ends, srun fails"
like "$(cat keepjob.err)" "node02" "srun names the node"
wait_for 20 job_ended "$c"
is "$(job_state "$c")" COMPLETED "the next step runs on node01 and the job completes"
like "$(cat keepjob.out)" "then on node01" "the next step ran on node01"
is "$(sacct -n -P -j "$c.0" -o State | head -1)" NODE_FAIL \
    "the plain step is NODE_FAIL in sacct"

wait_for 40 job_ended "$b"
is "$(job_state "$b")" COMPLETED "the --no-kill job with an srun -k step completes"
like "$(cat keep.out)" "survived node01" "the -k step went on on node01"
if grep -q "survived node02" keep.out; then
    not_ok "no output from the frozen node02"
else
    ok "no output from the frozen node02"
fi
like "$(cat keep.err)" "Node failure on node02" "srun reports the node failure"
like "$(cat keep.out)" "first rc=1" "srun -k exits 1 for the lost tasks"
like "$(cat keep.out)" "second on node01" "a later step runs on node01"
like "$(cat keep.out)" "second rc=0" "... and succeeds"
is "$(sacct -n -P -j "$b.0" -o State | head -1)" NODE_FAIL \
    "the -k step is NODE_FAIL in sacct (tasks were lost)"
is "$(sacct -n -P -j "$b.1" -o State | head -1)" COMPLETED \
    "the later step is COMPLETED"
like "$(sacct -n -P -j "$b" -X -o NodeList | head -1)" "^node01$" \
    "sacct NodeList is what the job kept"

resume_stopped
finish
