#!/usr/bin/env bash
# Interactive work, srun's side, driven through a real terminal (tmux):
# `srun -p dev --gres=gpu:1 --pty bash` without a job (the prompt, the
# job's id and its one GPU seen from the compute side's own tty, the
# window size and its change, Ctrl-C / Ctrl-Z / Ctrl-\ to the remote
# foreground process, `exit 7` coming back as srun's status with the
# local terminal's modes restored, squeue's name and sacct's JOBID.0);
# a session ended by its time limit and one preempted by a prod job,
# each with Slurm's message on the terminal; `srun --jobid=N --overlap
# --pty bash` into a running batch job (its files and GPUs; refused to
# another user); srun without a job and without a terminal (-N 2 on
# backtest, --pty with stdin not a terminal), waiting for a full
# partition and withdrawn by Ctrl-C, and its refusals (unknown
# partition, too many GPUs, over MaxTime, -I on a busy partition).
# salloc is t94_salloc.sh.  Time limits run 10 times faster
# (SLUICE_TEST_TIME_DIVISOR): -t 1 is 6 s, dev's MaxTime 6 minutes.
. "$(dirname "$0")/lib.sh"

tmux_need
export SLUICE_TEST_TIME_DIVISOR=10
cluster_start "$E2E_ROOT/tests/e2e/conf/interactive.conf"
tmux_start
OTHER=
trap 'cluster_stop; [ -z "$OTHER" ] || userdel "$OTHER" 2>/dev/null' EXIT

. "$E2E_ROOT/tests/e2e/interactive.sh"
# id_named NAME: the id of the (last) job called NAME, in any state; X
# when there is none, so that patterns built from it match nothing.
id_named() {
    local id
    id=$(squeue -h -t all -n "$1" -o %i 2>/dev/null | sort -n | tail -1)
    echo "${id:-X}"
}

# --- srun -p dev --gres=gpu:1 --pty bash -------------------------------------
pty_session() {
    local id rtty
    tmux_type 'tty >tty.local; stty -a >stty.before'
    wait_for 5 test -s stty.before
    session 20 'srun -p dev --gres=gpu:1 --pty bash' \
        "srun -p dev --gres=gpu:1 --pty bash: the remote shell's prompt appears" || return
    wait_for 10 eval '[ "$(id_named bash)" != X ]'
    id=$(id_named bash)
    is "$(squeue -h -j "$id" -o '%j %P %T' 2>&1)" "bash dev RUNNING" \
        "squeue: the job is named after the command (bash), in dev, RUNNING"
    tmux_type 'echo "job=$SLURM_JOB_ID gpus=$CUDA_VISIBLE_DEVICES node=$SLURMD_NODENAME"; tty; [ -t 0 ] && echo "stdin a tty"'
    waited 10 "^job=$id gpus=[0-3] node=node01\$" \
        "the shell runs in job $id on node01 and sees exactly one GPU"
    tmux_wait 5 '^/dev/' 'job=[$]SLURM_JOB_ID' >/dev/null # tty's line may follow late
    rtty=$(tmux_line '^/dev/' 'job=[$]SLURM_JOB_ID')
    like "$rtty" '^/dev/pts/[0-9]+$' "tty in the remote shell: a pseudo-terminal ($rtty)"
    check "$([ -n "$rtty" ] && [ "$rtty" != "$(cat tty.local)" ] && echo 1)" \
        "a pseudo-terminal of its own, not the local one ($(cat tty.local))"
    waited 5 '^stdin a tty$' 'job=[$]SLURM_JOB_ID' "the remote shell's stdin is that terminal"

    tmux_type 'echo "size $SLURM_JOB_ID $(stty size)"'
    waited 10 "^size $id 40 120\$" "remote stty size: the local window's 40 rows, 120 columns"
    tmux_resize 100 30
    sleep 0.5
    tmux_type 'echo "resized $SLURM_JOB_ID $(stty size)"'
    if ! tmux_wait 5 "^resized $id 30 100\$" >/dev/null; then
        tmux_type 'echo "resized $SLURM_JOB_ID $(stty size)"' # raced the keys
    fi
    waited 5 "^resized $id 30 100\$" "after tmux resize-window: remote stty size 30 100"
    tmux_resize 120 40

    tmux_type 'sleep 100'
    sleep 1
    tmux_keys C-c
    tmux_type 'echo "back $SLURM_JOB_ID"'
    waited 5 "^back $id\$" "sleep 100 then Ctrl-C: the remote prompt is back at once"
    is "$(state_of "$id")" RUNNING "Ctrl-C went to the remote sleep, not to srun: the job runs"
    tmux_type 'sleep 101'
    sleep 1
    tmux_keys C-z
    waited 5 'Stopped +sleep 101' "Ctrl-Z stops the remote foreground job"
    tmux_type 'kill -KILL %1'
    tmux_type 'sleep 102'
    sleep 1
    tmux_keys 'C-\'
    tmux_type 'echo "after quit $SLURM_JOB_ID"'
    waited 5 "^after quit $id\$" "Ctrl-\\ ends the remote foreground job, the shell goes on"
    waited 1 'Quit' 'sleep 102$' "the remote shell reports it: Quit"

    tmux_type 'exit 7'
    back_local exit7 'exit 7$'
    is "$(rc_of exit7)" 7 "the local srun exits 7"
    wait_for 10 job_ended "$id"
    is "$(squeue -h 2>&1)" "" "the job left the queue with its step"
    is "$(squeue -h -s 2>&1)" "" "... and no step runs"
    acct=$(sacct -j "$id" -n -P -o JobID,JobName,State,ExitCode 2>&1)
    like "$acct" "^$id\\|bash\\|FAILED\\|7:0\$" "sacct: the job bash FAILED 7:0"
    like "$acct" "^$id\\.0\\|bash\\|FAILED\\|7:0\$" "sacct: its step $id.0 FAILED 7:0"
    check "$(printf '%s\n' "$acct" | grep -q "^$id\\.batch" || echo 1)" "and no batch step"
}

# --- the time limit ends a session, with Slurm's message ---------------------
time_limit() {
    local tl
    session 20 'srun -p dev -t 1 -J tlimit --pty bash' \
        "srun -p dev -t 1 --pty bash: a prompt" || return
    tl=$(id_named tlimit)
    waited 30 "CANCELLED AT .* DUE TO TIME LIMIT" 'srun -p dev -t 1' \
        "the session ends at its limit (6 s here) with '*** ... CANCELLED AT ... DUE TO TIME LIMIT ***'"
    like "$(tmux_line 'DUE TO TIME LIMIT' 'srun -p dev -t 1')" "(STEP $tl\\.0|JOB $tl) ON node01 CANCELLED AT " \
        "the message names the job ($tl) and the node"
    back_local tlimit 'DUE TO TIME LIMIT'
    like "$(rc_of tlimit)" '^[1-9][0-9]*$' "srun exits non-zero"
    wait_for 10 job_ended "$tl"
    is "$(sacct -n -X -P -j "$tl" -o JobName,State 2>&1)" "tlimit|TIMEOUT" "sacct: TIMEOUT"
}

# --- a dev session preempted by a prod job -----------------------------------
preempted() {
    local dv p rep
    session 20 'srun -p dev --gres=gpu:4 -J devsess --pty bash' \
        "a dev session holding node01's 4 GPUs" || return
    dv=$(id_named devsess)
    p=$(submit -p prod --gres=gpu:1 -J prodjob -o /dev/null --wrap 'sleep 3')
    waited 30 "preempted by job $p \\(partition prod\\)" \
        "the terminal says: preempted by job $p (partition prod)"
    back_local preempt 'preempted by job'
    like "$(rc_of preempt)" '^[1-9][0-9]*$' "srun exits non-zero"
    wait_for 20 is_state "$p" COMPLETED
    is "$(state_of "$p")" COMPLETED "the prod job ran"
    is "$(state_of "$dv")" PREEMPTED "the session ended PREEMPTED"
    sleep 2
    is "$(state_of "$dv")" PREEMPTED "and stays so: an interactive job is not requeued"
    like "$(scontrol show job "$dv" 2>&1)" 'Restarts=0' "Restarts=0"
    is "$(sacct -n -X -P -j "$dv" -o State 2>&1)" PREEMPTED "sacct: PREEMPTED"
    rep=$(sluice report preemptions --json 2>&1)
    val() {
        printf '%s' "$rep" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)" 2>&1
    }
    is "$(val "[(g['preempted'], g['caused']) for g in r['partitions'] if g['name'] == 'dev']")" \
        "[(1, 0)]" "sluice report preemptions: one suffered in dev"
    is "$(val "[g['caused'] for g in r['partitions'] if g['name'] == 'prod']")" "[1]" \
        "and one caused by prod"
}

# --- srun --jobid=N --overlap --pty bash into a running batch job --------------
overlap() {
    local bid jgpus out rc
    mkdir -p train
    cat >train/train.sh <<'EOS'
#!/bin/bash
echo "gpus=$CUDA_VISIBLE_DEVICES" >job.gpus
echo "checkpoint of job $SLURM_JOB_ID" >ckpt.txt
sleep 600
EOS
    bid=$(cd train && submit -p backtest --gres=gpu:2 -J train -o train.out train.sh)
    wait_for 20 test -s train/job.gpus
    jgpus=$(sed 's/^gpus=//' train/job.gpus 2>/dev/null)
    like "$jgpus" '^[0-3],[0-3]$' "a batch job with 2 GPUs runs ($jgpus)"
    tmux_type 'cd train'
    if session 20 "srun --jobid=$bid --overlap --pty bash" \
        "srun --jobid=$bid --overlap --pty bash: a prompt"; then
        tmux_type 'echo "in=$SLURM_JOB_ID gpus=$CUDA_VISIBLE_DEVICES"; cat ckpt.txt; pwd'
        waited 10 "^in=$bid gpus=$jgpus\$" "the shell is in job $bid and sees its GPUs ($jgpus)"
        waited 5 "^checkpoint of job $bid\$" "and the job's files in its working directory"
        # pwd's line follows the checkpoint's: waited for, not read at once
        waited 5 "^$WORK/train\$" 'cat ckpt.txt' "pwd: the job's working directory"
        like "$(squeue -s -h -j "$bid" -o %i 2>&1 | tr '\n' ' ')" "$bid\\.0" \
            "squeue -s: the shell is step $bid.0 of the job"
        tmux_type 'exit'
        waited 15 "$LOCAL" 'cat ckpt.txt' "exit: the local prompt is back"
        tmux_type 'echo "ov rc=$?"'
        waited 5 '^ov rc=0$' "srun exits 0"
        is "$(state_of "$bid")" RUNNING "the batch job goes on"
    fi
    tmux_type 'cd ..'

    if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
        useradd -M -d /nonexistent -s /bin/sh "sluicei$$" 2>/dev/null; then
        OTHER=sluicei$$
        chmod 755 "$DIR" "$WORK"
        out=$(cd / && runuser -u "$OTHER" -- env SLUICE_CONF="$SLUICE_CONF" \
            PATH="$E2E_BIN:/usr/bin:/bin" srun --jobid="$bid" --overlap true 2>&1 </dev/null)
        rc=$?
        like "$out" "^srun: error: .*(Access denied|belongs to)" \
            "another user's srun --jobid=$bid --overlap is refused with a clear message"
        is "$rc" 1 "and exits 1"
        is "$(state_of "$bid")" RUNNING "the job is untouched"
    else
        ok "# SKIP another user's srun --overlap (needs root, useradd and runuser)"
    fi
    scancel "$bid"
    wait_for 20 job_ended "$bid"
}

pty_session
time_limit
preempted
overlap

# --- srun without a job and without a terminal ---------------------------------
out=$(srun -p backtest -N 2 -l printenv SLURMD_NODENAME 2>&1 </dev/null)
rc=$?
is "$rc" 0 "srun -p backtest -N 2 without a job exits 0"
is "$(printf '%s\n' "$out" | grep -cE '^ ?[01]: node0[2-4]$')" 2 "both tasks answer, labelled"
is "$(printf '%s\n' "$out" | grep -E '^ ?[01]: ' | awk '{print $2}' | sort -u | wc -l)" 2 \
    "from two different nodes"
pn=$(id_named printenv)
is "$(sacct -n -P -j "$pn" -o JobID,JobName,State 2>&1 | tr '\n' ' ')" \
    "$pn|printenv|COMPLETED $pn.0|printenv|COMPLETED " \
    "sacct: the job (named after the command) and its step 0, COMPLETED"

out=$(srun -p dev --pty bash -c 'echo "job=$SLURM_JOB_ID"; [ -t 0 ] && echo tty || echo notty' \
    2>&1 </dev/null)
rc=$?
like "$out" "^srun: (error|warning): .*(disregarding --pty|not a terminal)" \
    "--pty with stdin not a terminal: a warning, as Slurm's srun gives"
like "$out" "^job=[0-9]+\$" "and the command still runs in a job"
like "$out" "^notty\$" "without a pseudo-terminal (--pty disregarded)"
is "$rc" 0 "srun exits 0"

# --- a full partition: waiting, Ctrl-C ------------------------------------------
full=$(submit -p dev -c 16 --gres=gpu:4 -J filler -o /dev/null --wrap 'sleep 600')
wait_for 20 is_state "$full" RUNNING
tmux_type 'srun -p dev -J waiter true'
waited 15 "^srun: job [0-9]+ queued and waiting for resources" \
    "dev is full: srun says the job is queued and waiting for resources"
wt=$(id_named waiter)
is "$(squeue -h -j "$wt" -o '%T %j' 2>&1)" "PENDING waiter" "squeue: the job pends meanwhile"
tmux_keys C-c
waited 10 "srun: Job allocation $wt has been revoked" \
    "Ctrl-C while pending: srun: Job allocation $wt has been revoked."
waited 10 "$LOCAL" 'has been revoked' "the local prompt is back"
tmux_type 'echo "wait rc=$?"'
waited 5 '^wait rc=1$' "srun exits 1"
wait_for 10 job_ended "$wt"
is "$(sacct -n -X -P -j "$wt" -o State 2>&1)" "CANCELLED by $(id -u)" \
    "sacct: CANCELLED by the user"

# -I: at once, and nothing left behind
n0=$(squeue -h -t all -o %i | wc -l)
t0=$(date +%s%N)
out=$(srun -p dev -I true 2>&1 </dev/null)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
like "$out" "^srun: error: .*(Unable to allocate resources|Requested nodes are busy)" \
    "srun -I on a full partition: Unable to allocate resources"
is "$rc" 1 "exits 1"
check "$([ "$ms" -lt 3000 ] && echo 1)" "at once ($ms ms)"
is "$(squeue -h -t all -o %i | wc -l)" "$n0" "and leaves no job behind"
scancel "$full"
wait_for 20 job_ended "$full"

# --- refusals before any waiting, with sbatch's messages ------------------------
# refused CASE ARGS...: srun ARGS fails at once with the message sbatch
# gives for the same request.
refused() {
    local what=$1 sb t0 ms out rc
    shift
    sb=$(sbatch "$@" --wrap true 2>&1 | sed -n 's/^sbatch: error: Batch job submission failed: //p')
    t0=$(date +%s%N)
    out=$(srun "$@" true 2>&1 </dev/null)
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    check "$([ -n "$sb" ] && printf '%s\n' "$out" | grep '^srun: error: ' | grep -qF -- "$sb" && echo 1)" \
        "srun $*: sbatch's message ($sb)"
    [ -n "$sb" ] || echo "# sbatch said nothing: $(sbatch "$@" --wrap true 2>&1)"
    printf '%s\n' "$out" | grep -q '^srun: error: ' || printf '#   srun: %s\n' "$out"
    is "$rc $(printf '%s\n' "$out" | grep -c 'queued and waiting')" "1 0" \
        "$what: exit 1, never queued ($ms ms)"
}
refused "an unknown partition" -p nosuch
refused "too many GPUs" -p dev --gres=gpu:5
refused "over dev's MaxTime (EnforcePartLimits=ALL)" -p dev -t 2:00:00

tmux_stop
cluster_gone
finish
