#!/usr/bin/env bash
# Interactive work, salloc's side, driven through a real terminal (tmux):
# `salloc -N 2 -p backtest` (Slurm's lines, the shell with SLURM_* set,
# `srun -l hostname` answered by both nodes, exit releases: squeue empty,
# sacct COMPLETED); salloc with a command (its exit status, the job named
# after it), --no-shell; salloc while dev is full (the pending and reason
# lines, squeue and sluice explain meanwhile, Ctrl-C withdraws it: sacct
# CANCELLED by the user; -I fails at once); refusals before any waiting
# with sbatch's messages (unknown partition, too many GPUs, over MaxTime
# under EnforcePartLimits=ALL); the time limit and a preemption by a prod
# job ending an allocation with Slurm's messages.  Then the cluster again
# with LaunchParameters=use_interactive_step and EnforcePartLimits=NO:
# the shell runs on the node as step JOBID.interactive (sacct), and a
# time over MaxTime pends with PartitionTimeLimit, said on the terminal.
# Time limits run 10 times faster (SLUICE_TEST_TIME_DIVISOR): -t 1 is 6 s.
. "$(dirname "$0")/lib.sh"

tmux_need
export SLUICE_TEST_TIME_DIVISOR=10
CONF=$E2E_ROOT/tests/e2e/conf/interactive.conf
VARIANT=$(mktemp /tmp/sluice-e2e-interactive.XXXXXX)
cluster_start "$CONF"
trap 'cluster_stop; rm -f "$VARIANT"' EXIT
tmux_start

. "$E2E_ROOT/tests/e2e/interactive.sh"
# granted AFTER: the id in "salloc: Granted job allocation N" below
# AFTER; X when there is none.
granted() {
    local id
    id=$(tmux_line '^salloc: Granted job allocation [0-9]+$' "$1" | grep -Eo '[0-9]+$')
    echo "${id:-X}"
}
pending_id() {
    local id
    id=$(tmux_line '^salloc: Pending job allocation [0-9]+$' "$1" | grep -Eo '[0-9]+$')
    echo "${id:-X}"
}
tmux_type 'stty -a >stty.before'
wait_for 5 test -s stty.before

# --- salloc -N 2 -p backtest, srun inside, exit ------------------------------
two_nodes() {
    local id
    session 20 'salloc -N 2 -p backtest' "salloc -N 2 -p backtest: a shell" || return
    id=$(granted 'salloc -N 2 -p backtest')
    like "$id" '^[0-9]+$' "salloc: Granted job allocation $id"
    is "$(squeue -h -j "$id" -o '%j %P %D %T' 2>&1)" "interactive backtest 2 RUNNING" \
        "squeue: job $id 'interactive' (no command given), 2 nodes, RUNNING"
    tmux_type 'echo "in=$SLURM_JOB_ID nn=$SLURM_NNODES/$SLURM_JOB_NUM_NODES nl=$SLURM_JOB_NODELIST p=$SLURM_JOB_PARTITION"'
    waited 10 "^in=$id nn=2/2 nl=node(\\[0[2-4][-,]0[2-4]\\]|0[2-4],node0[2-4]) p=backtest\$" \
        "the shell has SLURM_JOB_ID, SLURM_NNODES, SLURM_JOB_NODELIST, SLURM_JOB_PARTITION"
    tmux_type 'srun -l hostname; echo "hostname rc=$?"'
    waited 20 '^hostname rc=0$' "srun -l hostname inside the allocation exits 0"
    is "$(tmux_after 'srun -l hostname;' | grep -cE '^ ?[01]: [^ ]+$')" 2 \
        "two labelled answers (0: and 1:)"
    tmux_type 'srun -l printenv SLURMD_NODENAME | sort'
    waited 20 '^ ?1: node0[2-4]$' 'srun -l printenv' "srun -l printenv SLURMD_NODENAME: task 1 answers"
    is "$(tmux_after 'srun -l printenv' | grep -E '^ ?[01]: node0[2-4]$' | awk '{print $2}' | sort -u | wc -l)" 2 \
        "from both nodes of the allocation"
    tmux_type 'exit'
    waited 15 "^salloc: Relinquishing job allocation $id\$" 'exit$' \
        "exit: salloc: Relinquishing job allocation $id"
    back_local alloc2 "Relinquishing job allocation"
    is "$(rc_of alloc2)" 0 "salloc exits 0 as its shell did"
    wait_for 10 job_ended "$id"
    is "$(squeue -h 2>&1)" "" "squeue is empty: the allocation is released"
    is "$(sacct -n -X -P -j "$id" -o State,ExitCode 2>&1)" "COMPLETED|0:0" "sacct: COMPLETED 0:0"
    like "$(sacct -n -P -j "$id" -o JobID 2>&1 | tr '\n' ' ')" "$id\\.0 $id\\.1 " \
        "sacct: the two srun steps $id.0 and $id.1"
}
two_nodes

# --- salloc with a command, --no-shell -----------------------------------------
out=$(salloc -p dev bash -c 'echo "in $SLURM_JOB_ID"; exit 3' 2>&1 </dev/null)
rc=$?
id=$(printf '%s\n' "$out" | sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p')
like "$out" "^in $id\$" "salloc -p dev bash -c ...: the command runs in job $id"
like "$out" "^salloc: Relinquishing job allocation $id\$" "salloc relinquishes it afterwards"
is "$rc" 3 "salloc exits 3 as the command did"
wait_for 10 job_ended "${id:-X}"
is "$(sacct -n -X -P -j "${id:-X}" -o JobName,State,ExitCode 2>&1)" "bash|FAILED|3:0" \
    "sacct: named after the command, FAILED 3:0"

out=$(salloc -p backtest --no-shell 2>&1 </dev/null)
rc=$?
id=$(printf '%s\n' "$out" | sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p')
is "$rc" 0 "salloc --no-shell exits 0 ($out)"
is "$(state_of "${id:-X}")" RUNNING "and its allocation stays"
is "$(SLURM_JOB_ID=${id:-X} srun printenv SLURM_JOB_ID 2>&1 </dev/null)" "${id:-X}" \
    "srun with SLURM_JOB_ID set runs in it"
scancel "${id:-X}"
wait_for 10 job_ended "${id:-X}"

# --- dev full: pending and reason lines, Ctrl-C; -I ------------------------------
full=$(submit -p dev -c 16 --gres=gpu:4 -J filler -o /dev/null --wrap 'sleep 600')
wait_for 20 is_state "$full" RUNNING
tmux_type 'salloc -p dev -J waiting'
waited 15 '^salloc: Pending job allocation [0-9]+$' 'salloc -p dev -J waiting' \
    "dev is full: salloc: Pending job allocation N"
wt=$(pending_id 'salloc -p dev -J waiting')
waited 10 "^salloc: job $wt queued and waiting for resources\$" \
    "salloc: job $wt queued and waiting for resources"
waited 15 "^salloc: job $wt pending: Reason=(Resources|Priority)" \
    "and the reason: salloc: job $wt pending: Reason=Resources"
is "$(squeue -h -j "$wt" -o '%j %T' 2>&1)" "waiting PENDING" "squeue: the job pends meanwhile"
like "$(sluice explain "$wt" 2>&1)" "node01" "sluice explain $wt names node01 (busy)"
tmux_keys C-c
waited 10 "salloc: Job allocation $wt has been revoked\\.?\$" 'salloc -p dev -J waiting' \
    "Ctrl-C: salloc: Job allocation $wt has been revoked."
back_local pend "has been revoked"
is "$(rc_of pend)" 1 "salloc exits 1"
wait_for 10 job_ended "$wt"
is "$(sacct -n -X -P -j "$wt" -o State 2>&1)" "CANCELLED by $(id -u)" "sacct: CANCELLED by the user"

n0=$(squeue -h -t all -o %i | wc -l)
t0=$(date +%s%N)
out=$(salloc -p dev -I true 2>&1 </dev/null)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
like "$out" "^salloc: error: .*(Unable to allocate resources|Requested nodes are busy)" \
    "salloc -I on a full partition: Unable to allocate resources"
is "$rc" 1 "exits 1"
check "$([ "$ms" -lt 3000 ] && echo 1)" "at once ($ms ms)"
is "$(squeue -h -t all -o %i | wc -l)" "$n0" "and leaves no job behind"
scancel "$full"
wait_for 20 job_ended "$full"
wait_for 10 eval '[ -z "$(squeue -h -p dev)" ]' # nothing completing there
out=$(salloc -p dev -I true 2>&1 </dev/null)
is "$?" 0 "salloc -I on an idle partition runs ($(printf '%s' "$out" | tail -1))"

# --- refusals before any waiting, with sbatch's messages ------------------------
# refused WHAT ARGS...: salloc ARGS fails at once with sbatch's message.
refused() {
    local what=$1 sb t0 ms out rc
    shift
    sb=$(sbatch "$@" --wrap true 2>&1 | sed -n 's/^sbatch: error: Batch job submission failed: //p')
    t0=$(date +%s%N)
    out=$(salloc "$@" true 2>&1 </dev/null)
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    check "$([ -n "$sb" ] && printf '%s\n' "$out" | grep '^salloc: error: ' | grep -qF -- "$sb" && echo 1)" \
        "salloc $*: sbatch's message ($sb)"
    printf '%s\n' "$out" | grep -q '^salloc: error: ' || printf '#   salloc: %s\n' "$out"
    is "$rc $(printf '%s\n' "$out" | grep -cE 'Pending job allocation|queued and waiting')" "1 0" \
        "$what: exit 1 before any waiting ($ms ms)"
}
refused "an unknown partition" -p nosuch
refused "too many GPUs" -p dev --gres=gpu:5
refused "over dev's MaxTime (EnforcePartLimits=ALL)" -p dev -t 2:00:00

# --- the time limit ends an allocation -----------------------------------------
time_limit() {
    local id
    session 20 'salloc -p dev -t 1' "salloc -p dev -t 1: a shell" || return
    id=$(granted 'salloc -p dev -t 1')
    waited 30 "salloc: Job $id has exceeded its time limit and its allocation has been revoked\\.?\$" \
        'salloc -p dev -t 1' "at its limit: salloc: Job $id has exceeded its time limit and its allocation has been revoked."
    back_local tlimit 'exceeded its time limit'
    is "$(rc_of tlimit)" 1 "salloc exits 1"
    wait_for 10 job_ended "$id"
    is "$(sacct -n -X -P -j "$id" -o State 2>&1)" TIMEOUT "sacct: TIMEOUT"
}
time_limit

# --- a prod job preempts a dev allocation ---------------------------------------
preempted() {
    local id p rep
    session 20 'salloc -p dev --gres=gpu:4' "salloc -p dev --gres=gpu:4: a shell" || return
    id=$(granted 'salloc -p dev --gres=gpu:4')
    p=$(submit -p prod --gres=gpu:1 -o /dev/null --wrap 'sleep 3')
    waited 30 "salloc: Job allocation $id has been revoked\\.?\$" 'salloc -p dev --gres' \
        "salloc: Job allocation $id has been revoked."
    waited 5 "^salloc: job $id was preempted by job $p \\(partition prod\\)\$" 'salloc -p dev --gres' \
        "salloc: job $id was preempted by job $p (partition prod)"
    back_local preempt 'has been revoked'
    is "$(rc_of preempt)" 1 "salloc exits 1"
    wait_for 20 is_state "$p" COMPLETED
    is "$(state_of "$id")" PREEMPTED "the allocation ended PREEMPTED, not requeued"
    rep=$(sluice report preemptions --json 2>&1)
    is "$(printf '%s' "$rep" | python3 -c "import json,sys; r=json.load(sys.stdin)
print([g['preempted'] for g in r['partitions'] if g['name'] == 'dev'])" 2>&1)" "[1]" \
        "sluice report preemptions counts it"
}
preempted

tmux_stop
cluster_gone
cluster_stop

# --- LaunchParameters=use_interactive_step, EnforcePartLimits=NO ----------------
sed 's/^EnforcePartLimits=.*/EnforcePartLimits=NO/' "$CONF" >"$VARIANT"
echo 'LaunchParameters=use_interactive_step' >>"$VARIANT"
cluster_start "$VARIANT"
trap 'cluster_stop; rm -f "$VARIANT"' EXIT
tmux_start
tmux_type 'stty -a >stty.before'
wait_for 5 test -s stty.before

interactive_step() {
    local id
    session 20 'salloc -p dev' "use_interactive_step: salloc -p dev gives a shell" || return
    id=$(granted 'salloc -p dev')
    tmux_type 'echo "in=$SLURM_JOB_ID on=$SLURMD_NODENAME"; tty'
    waited 10 "^in=$id on=node01\$" "the shell runs on the allocated node (SLURMD_NODENAME=node01)"
    tmux_wait 5 '^/dev/' 'in=[$]SLURM_JOB_ID' >/dev/null # tty's line may follow late
    like "$(tmux_line '^/dev/' 'in=[$]SLURM_JOB_ID')" '^/dev/pts/[0-9]+$' "on a pseudo-terminal"
    like "$(squeue -s -h -j "$id" -o %i 2>&1 | tr '\n' ' ')" "$id\\.interactive" \
        "squeue -s: step $id.interactive"
    tmux_type 'srun -n 1 printenv SLURM_STEP_ID; echo "inner rc=$?"'
    waited 20 '^inner rc=0$' "srun inside the interactive step runs"
    tmux_type 'exit'
    waited 15 "^salloc: Relinquishing job allocation $id\$" 'exit$' \
        "exit: salloc: Relinquishing job allocation $id"
    back_local istep 'Relinquishing job allocation'
    is "$(rc_of istep)" 0 "salloc exits 0"
    wait_for 10 job_ended "$id"
    acct=$(sacct -n -P -j "$id" -o JobID,JobName,State 2>&1)
    like "$acct" "^$id\\|interactive\\|COMPLETED\$" "sacct: the job 'interactive' COMPLETED"
    like "$acct" "^$id\\.interactive\\|interactive\\|COMPLETED\$" \
        "sacct: its step $id.interactive COMPLETED"
}
interactive_step

# over MaxTime with EnforcePartLimits=NO: pending, and said so
tmux_type 'salloc -p dev -t 2:00:00'
waited 15 '^salloc: Pending job allocation [0-9]+$' 'salloc -p dev -t 2:00:00' \
    "EnforcePartLimits=NO, -t 2:00:00 over dev's MaxTime: salloc: Pending job allocation N"
wt=$(pending_id 'salloc -p dev -t 2:00:00')
waited 10 "^salloc: job $wt pending: Reason=PartitionTimeLimit" \
    "salloc: job $wt pending: Reason=PartitionTimeLimit"
is "$(squeue -h -j "$wt" -o '%T %r' 2>&1)" "PENDING PartitionTimeLimit" "squeue agrees"
tmux_keys C-c
waited 10 "salloc: Job allocation $wt has been revoked" 'salloc -p dev -t 2:00:00' \
    "Ctrl-C withdraws it"
back_local overmax 'has been revoked'
tmux_type 'srun -p dev -t 2:00:00 true'
waited 15 'PartitionTimeLimit' 'srun -p dev -t 2:00:00' \
    "srun -p dev -t 2:00:00 without a job says it pends for PartitionTimeLimit"
tmux_keys C-c
waited 10 "$LOCAL" 'srun -p dev -t 2:00:00' "Ctrl-C withdraws it too"

tmux_stop
cluster_gone
finish
