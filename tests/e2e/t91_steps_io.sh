#!/usr/bin/env bash
# Job steps, the interactive side: srun run by the test itself inside a
# held allocation (SLURM_JOB_ID set), so that the test can signal it.
# SIGINT forwarded then a second one ending the step; scancel of one step
# and of the job; srun killed; a job's time limit; two --exact steps on
# their own GPUs and a third waiting for them; stdin to all, one or no
# task; -o per-task files; 1 GiB of output from four tasks, every line
# there and the node daemon answering meanwhile.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/steps.conf"
SRUNS=()
# every srun this test started in the background goes too
trap 'for p in "${SRUNS[@]}"; do kill -9 "$p" 2>/dev/null; done
      cluster_stop' EXIT

check() {
    if [ -n "$1" ]; then ok "$2"; else not_ok "$2"; fi
}
running() { [ "$(job_state "$1")" = RUNNING ]; }
# hold ARGS...: a job that sleeps, running; prints its id.
hold() {
    local id
    id=$(sbatch --parsable -o /dev/null "$@" --wrap 'sleep 600') || return 1
    wait_for 20 running "$id" || echo "# job $id is not running" >&2
    echo "$id"
}
steps_running() { [ "$(squeue -s -h -j "$1" | grep -c "$1\\.[0-9]")" -ge "$2" ]; }
lines_in() { [ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "$3" ]; }

# --- signals ---------------------------------------------------------------
id=$(hold -N 1 -n 2)
export SLURM_JOB_ID=$id
srun -n 2 bash -c 'trap "echo got INT \$SLURM_PROCID" INT
echo ready; while :; do sleep 0.2; done' >sig.out 2>sig.err &
spid=$!
SRUNS+=("$spid")
wait_for 20 lines_in sig.out ready 2
kill -INT "$spid"
check "$(wait_for 10 lines_in sig.out 'got INT' 2 && echo 1)" \
    "SIGINT to srun reaches both tasks (their traps print)"
like "$(cat sig.err)" "srun: interrupt" "srun says one more interrupt aborts"
check "$(kill -0 "$spid" 2>/dev/null && echo 1)" "after one SIGINT the step goes on"
kill -INT "$spid"
sleep 0.2
kill -INT "$spid" 2>/dev/null # the first may have ended it already
check "$(wait_for 15 sh -c "! kill -0 $spid" && echo 1)" \
    "two SIGINTs within a second end the step and srun"
wait "$spid"
rc=$?
check "$([ "$rc" -ne 0 ] && echo 1)" "srun exits non-zero ($rc) for a killed step"
is "$(job_state "$id")" RUNNING "the job goes on"

# --- scancel JOBID.STEP and JOBID ------------------------------------------
srun -n 1 --overlap sleep 300 >s0.out 2>s0.err &
s0=$!
SRUNS+=("$s0")
wait_for 20 steps_running "$id" 1
srun -n 1 --overlap sleep 300 >s1.out 2>s1.err &
s1=$!
SRUNS+=("$s1")
wait_for 20 steps_running "$id" 2
st1=$(squeue -s -h -j "$id" -o %i | sort -t. -k2 -n | tail -1)
scancel "$st1"
check "$(wait_for 15 sh -c "! kill -0 $s1" && echo 1)" "scancel $st1 ends that step's srun"
like "$(cat s1.err)" "STEP $st1 ON node0[0-9] CANCELLED" "srun says its step was cancelled"
check "$(kill -0 "$s0" 2>/dev/null && echo 1)" "the other step goes on"
is "$(job_state "$id")" RUNNING "and the job goes on"
scancel "$id"
check "$(wait_for 15 sh -c "! kill -0 $s0" && echo 1)" "scancel of the job ends its steps' srun"
like "$(cat s0.err)" "STEP $id\\.[0-9]+ ON node0[0-9] CANCELLED" "srun says why"
wait_for 20 job_ended "$id"

# --- srun killed: its step goes ----------------------------------------------
id=$(hold -N 1)
export SLURM_JOB_ID=$id
srun --overlap sleep 300 >/dev/null 2>&1 &
sk=$!
SRUNS+=("$sk")
wait_for 20 steps_running "$id" 1
kill -9 "$sk"
check "$(wait_for 15 sh -c "! squeue -s -h -j $id | grep -q '$id\\.[0-9]'" && echo 1)" \
    "srun killed: its step ends"
like "$(sacct -j "$id" -n -P -o JobID,State | grep "^$id\\.0")" "$id\\.0\\|(CANCELLED|FAILED)" \
    "sacct records the step ended"
scancel "$id"

# --- a job's time limit ends its steps, srun says why ----------------------
printf '%s\n' '#!/bin/bash' 'srun sleep 120' >tl.sh
tid=$(sbatch --parsable -t 0:05 -o tl.out tl.sh)
wait_for 60 job_ended "$tid"
is "$(job_state "$tid")" TIMEOUT "a job over its time limit"
like "$(cat tl.out)" "STEP $tid\\.0 ON node0[0-9] CANCELLED AT .* DUE TO TIME LIMIT" \
    "its srun says the step was cancelled due to the time limit"

# --- two --exact steps on their own GPUs, a third waiting ----------------
id=$(hold -N 1 -n 4 --gres=gpu:4)
export SLURM_JOB_ID=$id
for k in 1 2; do
    srun --exact -n 2 --gpus-per-task=1 bash -c \
        'echo "gpu=$CUDA_VISIBLE_DEVICES"; sleep 4' >"ex$k.out" 2>"ex$k.err" &
    SRUNS+=("$!")
    eval "ex$k=$!"
done
wait_for 20 steps_running "$id" 2
srun --exact -n 2 --gpus-per-task=1 bash -c 'echo "gpu=$CUDA_VISIBLE_DEVICES"' \
    >ex3.out 2>ex3.err &
ex3=$!
SRUNS+=("$ex3")
check "$(wait_for 10 lines_in ex3.err 'Requested nodes are busy' 1 && echo 1)" \
    "a third --exact step that does not fit waits (Requested nodes are busy)"
is "$(squeue -s -h -j "$id" | grep -c "$id\\.[0-9]")" 2 "two steps run meanwhile"
# shellcheck disable=SC2154 # set by eval above
wait "$ex1" "$ex2"
wait "$ex3"
is "$?" 0 "the third step ran once one ended"
like "$(cat ex3.err)" "Step created for StepId=$id\\.2" "srun says when the step was created"
is "$(cat ex1.out ex2.out | sort -u | wc -l)" 4 \
    "the two concurrent steps had four different GPUs"
is "$(cat ex3.out | sort -u | wc -l)" 2 "the third step's tasks each had a GPU"

# --- stdin, labels, per-task files -------------------------------------------
out=$(printf 'a\nb\n' | srun -l -n 2 --overlap cat | sort)
is "$(echo "$out" | tr '\n' ' ')" "0: a 0: b 1: a 1: b " \
    "stdin goes to every task by default (-l labels the lines)"
out=$(printf 'x\n' | srun -l -n 2 -i 1 --overlap cat)
is "$out" "1: x" "-i 1: stdin to task 1 only"
out=$(printf 'x\n' | srun -n 2 -i none --overlap cat)
is "$out" "" "-i none: no stdin"
srun -n 2 --overlap -o "task-%j-%t.out" bash -c 'echo "me $SLURM_PROCID"'
is "$(cat "task-$id-0.out" "task-$id-1.out" 2>&1 | tr '\n' ' ')" "me 0 me 1 " \
    "-o with %j and %t: one file per task"
scancel "$id"
wait_for 20 job_ended "$id"

# --- 1 GiB of output from four tasks ------------------------------------
id=$(hold -N 1 -n 4)
export SLURM_JOB_ID=$id
per=4194304 # lines of 65 bytes per task: 4 x 272 MB
start=$SECONDS
srun -n 4 --overlap bash -c "yes \"task \$SLURM_PROCID $(printf '%057d' 0)\" | head -n $per" \
    >flood.txt 2>flood.err &
fl=$!
SRUNS+=("$fl")
# the node daemon keeps answering while the flood runs
pid=$(sbatch --parsable -w node01 -o /dev/null --wrap true)
check "$(wait_for 60 job_ended "$pid" && echo 1)" \
    "another job starts and ends on the node meanwhile"
wait "$fl"
is "$?" 0 "srun of the flooding tasks exits 0"
echo "# 1.1 GB through srun in $((SECONDS - start)) s"
is "$(wc -l <flood.txt)" $((4 * per)) "every line arrived"
is "$(grep -cvE '^task [0-3] 0{57}$' flood.txt)" 0 "no line was cut or mixed with another"
is "$(grep -c '^task 2 ' flood.txt)" "$per" "task 2's lines all there"
rm -f flood.txt
scancel "$id"
unset SLURM_JOB_ID

cluster_gone
finish
