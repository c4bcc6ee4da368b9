#!/usr/bin/env bash
# sluice explain of a preemptor (tests/e2e/conf/preempt.conf: prod and dev
# share node01 with 4 GPUs; dev has GraceTime=5, PreemptExemptTime=5 s):
# while its victim, which ignores SIGTERM, is still in its grace time, the
# prod job's explanation names the job preempted for it; once the victim
# is gone the prod job runs.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt.conf"

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }

v=$(submit -p dev -J v --gpus-per-node=4 --no-requeue -o /dev/null \
    --wrap "trap '' TERM; while [ ! -e $WORK/stop ]; do sleep 0.1; done")
wait_for 15 is_state "$v" RUNNING || not_ok "the dev job runs"
sleep 6 # past PreemptExemptTime
p=$(submit -p prod -J p --gpus-per-node=4 -o /dev/null \
    --wrap "while [ ! -e $WORK/stop ]; do sleep 0.1; done")
has_victim() { sluice explain "$p" | grep -q "preempting for it: job $v;"; }
wait_for 4 has_victim
out=$(sluice explain "$p")
like "$out" "is PENDING in partition prod" "explain: the prod job waits"
like "$out" "preempting for it: job $v; it starts as soon as they have ended" \
    "explain: the job preempted for it, in its grace time"
like "$out" "estimated start: no estimate \(when the preempted jobs have ended\)" \
    "explain: no estimate from the victim's time limit meanwhile"
is "$(sluice explain --json "$p" | jq -c .preempting)" "[$v]" \
    "explain --json: preempting lists the victim"
wait_for 20 is_state "$p" RUNNING
is "$(state_of "$p")|$(state_of "$v")" "RUNNING|PREEMPTED" \
    "after the grace time the victim is gone and the prod job runs"

touch "$WORK/stop"
cluster_gone
finish
