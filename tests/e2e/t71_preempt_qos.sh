#!/usr/bin/env bash
# QOS preemption (PreemptType=preempt/qos): prod_qos with Preempt=dev_qos
# takes GPUs from dev_qos jobs, never from backtest_qos ones; of two
# equal dev_qos victims the one that reported a checkpoint (sluice
# checkpoint inside the job) loses less work and is chosen; sluice report
# preemptions adds it up.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt_qos.conf"

for q in "dev_qos Priority=100" "backtest_qos Priority=500" \
    "prod_qos Priority=1000 Preempt=dev_qos"; do
    # shellcheck disable=SC2086
    sacctmgr -i add qos $q >/dev/null 2>&1 || not_ok "sacctmgr add qos $q"
done
like "$(sacctmgr -n -P show qos format=Name,Preempt 2>&1 | grep prod_qos)" \
    '^prod_qos\|dev_qos$' "prod_qos may preempt dev_qos"

cat >job.sh <<'EOF2'
#!/bin/sh
trap 'exit 0' TERM
[ -n "$CKPT" ] && { sleep 2; sluice checkpoint && touch "$SLURM_JOB_NAME.ckpt"; }
while [ ! -e stop ]; do sleep 0.1; done
EOF2
chmod +x job.sh

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }

# dv1 starts first but checkpoints 2 s later; dv2 starts 1 s after dv1
# and never checkpoints: dv1 then has lost less work.  bt (backtest_qos)
# starts last, so it would lose less than either.
dv1=$(CKPT=1 submit -J dv1 -q dev_qos --gpus-per-node=1 -o dv1.out job.sh)
wait_for 15 is_state "$dv1" RUNNING
sleep 1
dv2=$(submit -J dv2 -q dev_qos --gpus-per-node=1 -o dv2.out job.sh)
wait_for 15 is_state "$dv2" RUNNING
wait_for 15 test -e dv1.ckpt
is "$(test -e dv1.ckpt && echo yes)" yes "sluice checkpoint inside the job succeeds"
like "$(sacct -n -X -j "$dv1" --events "$dv1" 2>&1 | grep -c checkpoint)" '^1$' \
    "the checkpoint is a job event"
bt=$(submit -J bt -q backtest_qos --gpus-per-node=2 -o bt.out job.sh)
wait_for 15 is_state "$bt" RUNNING
sleep 1

p1=$(submit -J p1 -q prod_qos --gpus-per-node=1 -o p1.out \
    --wrap 'while [ ! -e stop-p1 ]; do sleep 0.1; done')
wait_for 20 is_state "$p1" RUNNING
is "$(state_of "$p1")" RUNNING "the prod_qos job runs"
is "$(state_of "$dv1") $(state_of "$dv2") $(state_of "$bt")" \
    "PENDING RUNNING RUNNING" \
    "the checkpointed dev_qos job is the victim (requeued); dv2 and bt run on"

# 2 GPUs: only dv2's one GPU is dev_qos: no preemption at all
p2=$(submit -J p2 -q prod_qos --gpus-per-node=2 -o p2.out --wrap true)
sleep 2
is "$(state_of "$p2") $(state_of "$dv2") $(state_of "$bt")" \
    "PENDING RUNNING RUNNING" \
    "backtest_qos jobs are not preempted by prod_qos (and dv2 alone is not enough)"
scancel "$p2" "$dv1"
touch stop stop-p1
for j in "$p1" "$dv2" "$bt"; do wait_for 15 is_state "$j" COMPLETED; done

# --- Flags=ExemptUntilCheckpoint: exempt until the first checkpoint ---------
sacctmgr -i modify qos dev_qos set Flags=ExemptUntilCheckpoint >/dev/null 2>&1
like "$(sacctmgr -n -P show qos dev_qos format=Flags 2>&1)" ExemptUntilCheckpoint \
    "dev_qos has Flags=ExemptUntilCheckpoint"
rm -f stop stop-p1
e1=$(submit -J e1 -q dev_qos --gpus-per-node=4 -o e1.out job.sh)
wait_for 15 is_state "$e1" RUNNING
p3=$(submit -J p3 -q prod_qos --gpus-per-node=1 -o p3.out --wrap true)
sleep 2
is "$(state_of "$p3") $(state_of "$e1")" "PENDING RUNNING" \
    "a dev_qos job that never checkpointed is not preempted"
sluice checkpoint "$e1"
wait_for 20 is_state "$p3" COMPLETED
is "$(state_of "$p3")" COMPLETED "after its first checkpoint it is, and the prod job runs"
touch stop
wait_for 15 is_state "$e1" COMPLETED
sacctmgr -i modify qos dev_qos set Flags=-1 >/dev/null 2>&1

# --- the report -------------------------------------------------------------
rep=$(sluice report preemptions --json 2>&1)
val() { printf '%s' "$rep" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }
is "$(val "r['totals']['preempted'], r['totals']['requeues']")" "2 2" \
    "report: two preemptions, two requeues in all"
is "$(val "[(g['name'], g['preempted'], g['caused']) for g in r['qos']]")" \
    "[('backtest_qos', 0, 0), ('dev_qos', 2, 0), ('prod_qos', 0, 2)]" \
    "report per QOS: dev_qos suffered them, prod_qos caused them"
is "$(val "r['share']")" 0.25 "the flag share comes from PreemptParameters=report_share"
like "$(val "0 < r['totals']['gpu_hours_lost'] < 30 / 3600.0")" True \
    "GPU-hours lost: a few GPU-seconds since the checkpoints"
like "$(sluice report preemptions 2>&1)" 'dev_qos +[0-9]+ +2 ' "the text report"
finish
