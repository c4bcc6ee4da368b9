#!/usr/bin/env bash
# Preemption with the seed's settings (PreemptType=preempt/partition_prio,
# PreemptMode=REQUEUE) on a cluster where prod and dev share node01 with
# 4 count-only GPUs, PreemptExemptTime=00:00:05 and GraceTime=5 on dev:
# a prod job needing 2 GPUs takes exactly the 2 GPUs of the dev jobs past
# their exempt time, not those inside it (although they would lose less);
# the victims' SIGTERM trap sees the preemption marker, they are requeued
# and run again with SLURM_RESTART_COUNT=1; a --no-requeue victim that
# ignores SIGTERM is killed after its grace time and ends PREEMPTED;
# sacct shows the events.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt.conf"

# victim: logs its starts and what its SIGTERM trap saw; runs until
# "stop" exists (or, with IGNORE=1, keeps running after SIGTERM).
cat >victim.sh <<'EOF'
#!/bin/sh
log=$SLURM_JOB_NAME.log
echo "start restart=${SLURM_RESTART_COUNT:-0}" >>"$log"
on_term() {
    if [ -e "$SLUICE_PREEMPT_FILE" ]; then
        echo "term preempted $(date +%s)" >>"$log"
    else
        echo "term cancelled $(date +%s)" >>"$log"
    fi
    [ "${IGNORE:-0}" = 1 ] || exit 0
}
trap on_term TERM
while [ ! -e stop ]; do sleep 0.1; done
echo "done" >>"$log"
EOF
chmod +x victim.sh

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }
gres_of() { scontrol show job "$1" | tr ' ' '\n' | grep '^GRES=' | head -1; }

# --- prod takes exactly the GPUs past their exempt time --------------------
d1=$(submit -p dev -J d1 --gpus-per-node=1 -o d1.out victim.sh)
d2=$(submit -p dev -J d2 --gpus-per-node=1 -o d2.out victim.sh)
wait_for 15 is_state "$d1" RUNNING && wait_for 15 is_state "$d2" RUNNING
ok "two dev jobs run on node01"
sleep 6 # past PreemptExemptTime
d3=$(submit -p dev -J d3 --gpus-per-node=1 -o d3.out victim.sh)
d4=$(submit -p dev -J d4 --gpus-per-node=1 -o d4.out victim.sh)
wait_for 15 is_state "$d3" RUNNING && wait_for 15 is_state "$d4" RUNNING
is "$(squeue -h -t R -o %i | wc -l)" 4 "four dev jobs hold node01's 4 GPUs"

submit_time() { scontrol show job "$1" | tr ' ' '\n' | grep '^SubmitTime='; }
sub1=$(submit_time "$d1")
p1=$(submit -p prod -J p1 --gpus-per-node=2 -o p1.out \
    --wrap 'while [ ! -e stop-p1 ]; do sleep 0.1; done')
wait_for 20 is_state "$p1" RUNNING
is "$(state_of "$p1")" RUNNING "the prod job needing 2 GPUs runs"
is "$(state_of "$d3") $(state_of "$d4")" "RUNNING RUNNING" \
    "the dev jobs inside their exempt time are not preempted"
wait_for 10 eval "grep -q 'term preempted' d1.log && grep -q 'term preempted' d2.log"
is "$(grep -c 'term preempted' d1.log d2.log | tr '\n' ' ')" "d1.log:1 d2.log:1 " \
    "each victim's SIGTERM trap sees SLUICE_PREEMPT_FILE (a preemption)"
is "$(squeue -h -t R -o %i | sort -n | tr '\n' ' ')" \
    "$(printf '%s\n' "$d3" "$d4" "$p1" | sort -n | tr '\n' ' ')" \
    "exactly two dev jobs were taken: d3, d4 and the prod job run"
is "$(state_of "$d1") $(state_of "$d2")" "PENDING PENDING" \
    "the victims are requeued (PREEMPT_MODE=REQUEUE)"
is "$(submit_time "$d1")" "$sub1" "a requeued victim keeps its submit time"
like "$(scontrol show job "$d1")" 'Restarts=1' "its restart count is 1"

# --- the victims run again once prod is done -------------------------------
touch stop-p1
wait_for 20 eval "is_state $d1 RUNNING && is_state $d2 RUNNING"
is "$(state_of "$d1") $(state_of "$d2")" "RUNNING RUNNING" \
    "the requeued victims run again when the prod job ends"
wait_for 10 eval "grep -q 'restart=1' d1.log"
is "$(grep -c 'start restart=1' d1.log)" 1 \
    "the second run sees SLURM_RESTART_COUNT=1"
touch stop
for j in "$d1" "$d2" "$d3" "$d4"; do wait_for 15 is_state "$j" COMPLETED; done
is "$(state_of "$d1") $(state_of "$d4")" "COMPLETED COMPLETED" \
    "victims and bystanders complete"
rm -f stop

# --- --no-requeue, GraceTime: SIGTERM, then SIGKILL ------------------------
n1=$(IGNORE=1 submit -p dev -J n1 --no-requeue --gpus-per-node=4 -o n1.out \
    victim.sh)
wait_for 15 is_state "$n1" RUNNING
sleep 6
t0=$(date +%s)
p2=$(submit -p prod -J p2 --gpus-per-node=1 -o p2.out --wrap true)
wait_for 20 eval "grep -q 'term preempted' n1.log"
like "$(cat n1.log)" 'term preempted' "the --no-requeue victim's trap runs"
wait_for 20 is_state "$n1" PREEMPTED
t1=$(date +%s)
is "$(state_of "$n1")" PREEMPTED "a --no-requeue victim ends PREEMPTED"
[ $((t1 - t0)) -ge 4 ] && ok "it was killed only after its GraceTime" ||
    not_ok "it was killed after $((t1 - t0)) s, before GraceTime=5"
if grep -q done n1.log; then not_ok "n1 was not killed"; else ok "n1 was killed"; fi
wait_for 20 is_state "$p2" COMPLETED
is "$(state_of "$p2")" COMPLETED "the prod job ran once the victim was gone"

# --- a job waiting for exempt victims preempts when the exemption ends -----
x1=$(submit -p dev -J x1 --gpus-per-node=4 -o x1.out victim.sh)
wait_for 15 is_state "$x1" RUNNING
p3=$(submit -p prod -J p3 --gpus-per-node=1 -o p3.out --wrap true)
sleep 1
is "$(state_of "$p3") $(state_of "$x1")" "PENDING RUNNING" \
    "a prod job waits while the only victim is inside its exempt time"
wait_for 20 is_state "$p3" COMPLETED
is "$(state_of "$p3")" COMPLETED \
    "it preempts as soon as the exemption ends (no other event needed)"
touch stop
wait_for 20 is_state "$x1" COMPLETED
rm -f stop

# --- accounting ------------------------------------------------------------
like "$(sacct -n -X -j "$n1" -o state 2>&1)" PREEMPTED "sacct shows PREEMPTED"
like "$(sacct -n -X -j "$d1" -o restarts 2>&1 | tr -d " ")" "^1$" \
    "sacct shows the victim's restart"
finish
