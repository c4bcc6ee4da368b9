#!/usr/bin/env bash
# A preemption hold survives a kill -9 of the controller: prod p1 needs
# node01's 4 GPUs and preempts dev d1 (ignores SIGTERM, so it lives its
# GraceTime=5) and d2 (exits at once).  The controller is killed between
# the SIGTERMs and d1's SIGKILL and restarted: the hold is read back, so
# neither the requeued d2 nor the waiting dev job d3 takes d2's GPUs, and
# p1 starts on all four once d1 is gone.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt.conf"

cat >victim.sh <<'EOF'
#!/bin/sh
log=$SLURM_JOB_NAME.log
echo "start" >>"$log"
on_term() {
    echo "term" >>"$log"
    [ "${IGNORE:-0}" = 1 ] || exit 0
}
trap on_term TERM
while [ ! -e stop ]; do sleep 0.1; done
EOF
chmod +x victim.sh

is_state() { [ "$(job_state "$1")" = "$2" ]; }

d1=$(IGNORE=1 submit -p dev -J d1 --gpus-per-node=2 -o d1.out victim.sh)
d2=$(submit -p dev -J d2 --gpus-per-node=2 -o d2.out victim.sh)
wait_for 15 eval "is_state $d1 RUNNING && is_state $d2 RUNNING"
d3=$(submit -p dev -J d3 --gpus-per-node=2 -o d3.out victim.sh)
sleep 6 # past PreemptExemptTime
is "$(job_state "$d1") $(job_state "$d2") $(job_state "$d3")" \
    "RUNNING RUNNING PENDING" "two dev jobs hold node01's GPUs, a third waits"

p1=$(submit -p prod -J p1 --gpus-per-node=4 -o p1.out \
    --wrap 'while [ ! -e stop ]; do sleep 0.1; done')
wait_for 10 eval "grep -q term d1.log && grep -q term d2.log"
like "$(cat d1.log d2.log | tr '\n' ' ')" 'term.*term' \
    "p1 preempts both dev jobs"
wait_for 10 is_state "$d2" PENDING
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
grep -q 'start' d1.log && ! grep -q done d1.log &&
    ok "the controller is killed while d1 is still in its grace time" ||
    not_ok "the controller is killed while d1 is still in its grace time"

out=$(sluice up --dir "$DIR" 2>"$DIR/up2.err")
is "$out" "export SLUICE_CONF=$SLUICE_CONF" "the controller restarts"
wait_for 10 eval "grep -q 'preemption hold restored' $DIR/log/sluicectld.log"
like "$(grep 'preemption hold restored' "$DIR/log/sluicectld.log")" \
    "job=$p1 preemption hold restored" "it reads p1's hold back"

wait_for 20 is_state "$p1" RUNNING
is "$(job_state "$p1")" RUNNING "p1 runs once d1 is killed"
like "$(scontrol show job "$p1")" 'GRES=gpu:4' "on all four GPUs"
is "$(grep -c start d2.log) $(grep -c start d3.log 2>/dev/null || echo 0)" \
    "1 0" "neither the requeued d2 nor d3 took d2's GPUs meanwhile"
is "$(job_state "$d2") $(job_state "$d3")" "PENDING PENDING" \
    "both wait behind p1"

touch stop
for j in "$p1" "$d2" "$d3"; do wait_for 30 job_ended "$j"; done
is "$(job_state "$p1") $(job_state "$d2") $(job_state "$d3")" \
    "COMPLETED COMPLETED COMPLETED" "all finish afterwards"
finish
