#!/usr/bin/env bash
# Job steps (srun) on a four-node local cluster with count-only GPUs:
# tasks on every node of a 2-node job with their ids, GPUs per task, a
# two-rank TCP rendezvous across two nodes found through scontrol show
# hostnames and NodeAddr, exit codes and signals as Slurm reports them,
# steps in sacct (MaxRSS, TotalCPU), scontrol show step, squeue -s and
# sstat, and srun's refusals.  I/O, signals, cancels and concurrent steps
# are in t91_steps_io.sh.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/steps.conf"
RENDEZVOUS=$E2E_ROOT/$E2E_BUILD/tests/steps_prog/rendezvous

# check VALUE NAME: ok when VALUE is not empty.
check() {
    if [ -n "$1" ]; then ok "$2"; else not_ok "$2"; fi
}

# run_job NAME SCRIPT: submit SCRIPT (text) as NAME.sh, wait for its end;
# its output is NAME.out.  Prints the job id.
run_job() {
    local name=$1 id
    printf '%s\n' "$2" >"$name.sh"
    id=$(sbatch --parsable -o "$name.out" "$name.sh") || return 1
    wait_for 60 job_ended "$id" || echo "# job $id ($name) did not end" >&2
    echo "$id"
}

# --- tasks on every node of a 2-node job -----------------------------------
id=$(run_job layout '#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=4
echo "ntasks=$SLURM_NTASKS tpn=$SLURM_TASKS_PER_NODE"
srun -l hostname > hostname.out
srun -l bash -c "echo node=\$SLURMD_NODENAME nodeid=\$SLURM_NODEID proc=\$SLURM_PROCID local=\$SLURM_LOCALID step=\$SLURM_STEP_ID n=\$SLURM_NTASKS nodes=\$SLURM_STEP_NODELIST tpn=\$SLURM_STEP_TASKS_PER_NODE"')
is "$(job_state "$id")" COMPLETED "2-node job with two srun steps completed"
like "$(cat layout.out)" "ntasks=8 tpn=4\\(x2\\)" \
    "the batch script sees SLURM_NTASKS=8 and SLURM_TASKS_PER_NODE=4(x2)"
is "$(grep -cE '^ ?[0-7]: ' hostname.out)" 8 "srun -l hostname: 8 labelled lines"
is "$(sed -E 's/^ *([0-9]+): .*/\1/' hostname.out | sort -n | tr '\n' ' ')" \
    "0 1 2 3 4 5 6 7 " "labels 0-7 each once"
lines=$(grep -o 'node=.*' layout.out | sort)
is "$(echo "$lines" | grep -o 'proc=[0-9]*' | sort -t= -k2 -n | tr '\n' ' ')" \
    "proc=0 proc=1 proc=2 proc=3 proc=4 proc=5 proc=6 proc=7 " \
    "SLURM_PROCID 0-7 each exactly once"
n1=$(echo "$lines" | awk '{print $1}' | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')
is "$n1" "4 4 " "4 tasks on each of the two nodes"
is "$(echo "$lines" | awk '{print $1, $2}' | sort -u | wc -l)" 2 \
    "each node has its own SLURM_NODEID"
for node in $(echo "$lines" | awk '{print $1}' | sort -u); do
    is "$(echo "$lines" | grep "^$node " | grep -o 'local=[0-9]' | sort | tr '\n' ' ')" \
        "local=0 local=1 local=2 local=3 " "SLURM_LOCALID 0-3 on $node"
done
like "$(echo "$lines" | head -1)" "step=1 n=8 nodes=node\\[0[0-9]-0[0-9]\\]|nodes=node0[0-9],node0[0-9]" \
    "step id 1, 8 tasks, the step's node list"
like "$(echo "$lines" | head -1)" "tpn=4\\(x2\\)" "SLURM_STEP_TASKS_PER_NODE=4(x2)"

# --- GPUs per task, and a step over the job's GPUs --------------------------
id=$(run_job gpus '#!/bin/bash
#SBATCH -N 1 -n 4 --gres=gpu:4
srun -n 4 --gpus-per-task=1 bash -c "echo task=\$SLURM_PROCID gpus=\$CUDA_VISIBLE_DEVICES on=\$SLURM_GPUS_ON_NODE" | sort
srun -n 4 --gpus-per-task=5 true
echo "over rc=$?"')
out=$(cat gpus.out)
is "$(grep -c '^task=' gpus.out)" 4 "4 tasks with --gpus-per-task=1"
is "$(grep -o 'gpus=[^ ]*' gpus.out | sort -u | wc -l)" 4 \
    "each task sees a different CUDA_VISIBLE_DEVICES"
is "$(grep -o 'gpus=[^ ]*' gpus.out | grep -c 'gpus=[0-9]$')" 4 \
    "each task sees exactly one GPU"
like "$out" "srun: error: Unable to create step for job $id: .*5 GPUs per task" \
    "--gpus-per-task=5 on a gpu:4 job: a clear refusal"
like "$out" "over rc=1" "srun exits 1 when the step is refused"

# --- a two-rank rendezvous across two nodes ---------------------------------
id=$(run_job rdv '#!/bin/bash
#SBATCH -N 2
master=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
export MASTER_ADDR=$(scontrol show node "$master" | grep -o "NodeAddr=[^ ]*" | cut -d= -f2)
export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))
echo "master=$master addr=$MASTER_ADDR"
srun --ntasks-per-node=1 '"$RENDEZVOUS"'
echo "rdv rc=$?"')
out=$(cat rdv.out)
like "$out" "master=node0[0-9] addr=127.0.0.1" \
    "MASTER_ADDR from scontrol show hostnames and the node's NodeAddr"
like "$out" "^hello from rank 1 on node0[0-9]" "rank 0 got rank 1's message"
like "$out" "^hello from rank 0 on node0[0-9]" "rank 1 got rank 0's message"
like "$out" "rdv rc=0" "both ranks exited 0"

# --- exit codes --------------------------------------------------------------
id=$(run_job codes '#!/bin/bash
#SBATCH -N 2 -n 4
srun -n 4 bash -c "exit \$(( SLURM_PROCID == 3 ? 3 : 0 ))"
rc=$?
echo "srun rc=$rc"
srun -n 1 bash -c "kill -9 \$\$"
echo "kill rc=$?"
exit $rc')
out=$(cat codes.out)
like "$out" "srun: error: node0[0-9]: task 3: Exited with exit code 3" \
    "a task exiting 3: Slurm's message naming node and task"
like "$out" "srun rc=3" "srun exits with the task's code"
like "$out" "srun: error: node0[0-9]: task 0: Killed" "a task killed by SIGKILL"
like "$out" "kill rc=137" "srun exits 128+9 for it"
is "$(job_state "$id")" FAILED "the batch script's exit 3 fails the job"
acct=$(sacct -j "$id" -n -P -o JobID,JobName,State,ExitCode)
like "$acct" "$id\\.batch\\|batch\\|FAILED\\|3:0" "sacct: the batch step records exit 3"
like "$acct" "$id\\.0\\|bash\\|FAILED\\|3:0" "sacct: step 0 FAILED 3:0"
# Slurm records a step whose task died of a signal CANCELLED, code 0:SIG
like "$acct" "$id\\.1\\|bash\\|CANCELLED\\|0:9" "sacct: step 1 killed by signal 9"
is "$(sacct -X -j "$id" -n -P -o JobID | wc -l)" 1 "sacct -X hides the steps"

# --- usage: MaxRSS, TotalCPU, sstat ----------------------------------------
id=$(run_job usage '#!/bin/bash
#SBATCH -N 1 -n 1
srun -J mem python3 -c "
import time
b = bytearray(200 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
time.sleep(1)
"
srun -J cpu python3 -c "
import time
t = time.process_time()
while time.process_time() - t < 2.0:
    pass
"')
is "$(job_state "$id")" COMPLETED "usage job completed"
# MaxRSS as sacct prints it (204800K, 1.5G, ...) in KiB
rss=$(sacct -j "$id.0" -n -P -o MaxRSS | head -1 | awk '
    /K$/ { printf "%d", $0 + 0 } /M$/ { printf "%d", ($0 + 0) * 1024 }
    /G$/ { printf "%d", ($0 + 0) * 1048576 } /^[0-9]+$/ { printf "%d", $0 / 1024 }')
check "$([ "${rss:-0}" -ge 190000 ] && [ "${rss:-0}" -le 400000 ] && echo 1)" \
    "sacct MaxRSS of a step that touched 200 MB: ${rss}K"
raw=$(sacct -j "$id.0" -n -P --noconvert -o MaxRSS,MaxDiskRead | head -1)
like "$raw" "^[0-9]+K\\|[0-9]+$" "sacct --noconvert: MaxRSS in K, disk in bytes: $raw"
cpu=$(sacct -j "$id.1" -n -P -o TotalCPU | head -1)
like "$cpu" "^(00:)?0[2-3][.:]" "sacct TotalCPU of a step that burned 2 CPU-seconds: $cpu"
acct=$(sacct -j "$id" -n -P -o JobID,JobName,State,ExitCode,NTasks)
like "$acct" "$id\\.batch\\|batch\\|COMPLETED\\|0:0" "sacct .batch row"
like "$acct" "$id\\.0\\|mem\\|COMPLETED\\|0:0\\|1" "sacct .0 row with its name and NTasks"
like "$acct" "$id\\.1\\|cpu\\|COMPLETED\\|0:0\\|1" "sacct .1 row"

# a running step: sstat, squeue -s, scontrol show step
printf '%s\n' '#!/bin/bash' '#SBATCH -N 2' \
    'srun -J burn python3 -c "
import time
b = bytearray(50 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
t = time.time()
while time.time() - t < 30:
    pass
"' >burn.sh
id=$(sbatch --parsable -o burn.out burn.sh)
wait_for 20 sh -c "squeue -s -h | grep -q '$id\\.0'"
check "$(squeue -s -h | grep -q "^ *$id\\.0 *burn" && echo 1)" "squeue -s lists the running step $id.0"
sstat_cpu() { sstat -j "$id.0" -n -P -o AveCPU,MaxRSS | grep -v '^00:00:00|' | grep -q .; }
check "$(wait_for 20 sstat_cpu && echo 1)" "sstat shows non-zero usage of the running step"
raw=$(sstat -j "$id.0" -n -P --noconvert -o MaxRSS,MaxDiskRead)
like "$raw" "^[0-9]+K\\|[0-9]+$" "sstat --noconvert: MaxRSS in K, disk in bytes: $raw"
show=$(scontrol show step "$id.0")
like "$show" "StepId=$id\\.0" "scontrol show step names the step"
like "$show" "State=RUNNING" "scontrol show step: RUNNING"
like "$show" "Tasks=2" "scontrol show step: 2 tasks"
scancel "$id"
wait_for 20 job_ended "$id"
# srun, in the script's process group, may write after the script ended
check "$(wait_for 10 grep -qE "STEP $id\\.0 ON node0[0-9] CANCELLED" burn.out && echo 1)" \
    "scancel of the job: srun says its step was cancelled"

# --- refusals ------------------------------------------------------------
# (issue 15) srun outside a job creates one, as Slurm's does
out=$(env -u SLURM_JOB_ID srun printenv SLURM_JOB_ID 2>&1 </dev/null)
rc=$?
like "$out" "^[0-9]+\$" "srun outside a job runs as step 0 of a job of its own"
is "$rc" 0 "and exits 0"
id=$(run_job bad '#!/bin/bash
#SBATCH -N 2
srun -N 3 true; echo "n3 rc=$?"
srun -w node09 true; echo "w rc=$?"')
out=$(cat bad.out)
like "$out" "Only allocated 2 nodes asked for 3" "srun -N 3 in a 2-node job"
like "$out" "n3 rc=1" "and exits 1"
like "$out" "node09" "srun -w with a node outside the job names it"
like "$out" "w rc=1" "and exits 1"

cluster_gone
finish
