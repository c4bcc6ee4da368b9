#!/usr/bin/env bash
# An array of prod tasks preempts dev jobs task by task: node01's 4 GPUs
# run 4 dev jobs (1 GPU each, past PreemptExemptTime); `--array=0-3` in
# prod, each task needing one GPU, takes them one per task — all four
# tasks run, each dev job is preempted once and requeued, nothing more —
# and `sluice report preemptions` counts four preemptions caused by the
# prod user and suffered by dev.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt.conf"

cat >victim.sh <<'EOF'
#!/bin/sh
log=$SLURM_JOB_NAME.$SLURM_JOB_ID.log
echo "start" >>"$log"
trap 'echo term >>"$log"; exit 0' TERM
while [ ! -e stop ]; do sleep 0.1; done
EOF
chmod +x victim.sh

is_state() { [ "$(job_state "$1")" = "$2" ]; }
nrun() { [ "$(squeue -h -t R -o %i | grep -c .)" -eq "$1" ]; }

: >dev.ids
for i in 1 2 3 4; do
    submit -p dev -J dev --gpus-per-node=1 -o /dev/null victim.sh >>dev.ids
done
wait_for 20 nrun 4
is "$(squeue -h -t R -o %P | sort | uniq -c | tr -s ' ')" " 4 dev" \
    "four dev jobs hold node01's GPUs"
sleep 6 # past PreemptExemptTime

# each task also writes its autogroup's nice once it reads 0 (5 s at most)
a=$(submit -p prod -J prod --array=0-3 --gpus-per-node=1 -o a-%a.out \
    --wrap 'echo task=$SLURM_ARRAY_TASK_ID gpus=$CUDA_VISIBLE_DEVICES
for i in $(seq 50); do n=$(cut -d" " -f3 /proc/self/autogroup 2>/dev/null); [ "$n" = 0 ] && break; sleep 0.1; done
echo "$n" >ag-$SLURM_ARRAY_TASK_ID
while [ ! -e stop ]; do sleep 0.1; done')
prod_running() { [ "$(squeue -h -t R -p prod -r -o %i | grep -c .)" -eq 4 ]; }
wait_for 30 prod_running
is "$(squeue -h -t R -p prod -r -o %i | sort | tr '\n' ' ')" \
    "${a}_0 ${a}_1 ${a}_2 ${a}_3 " "all four prod tasks run"
is "$(squeue -h -t R -p dev -o %i | grep -c .)" 0 "no dev job runs"
is "$(grep -o "job=$a task=[0-9] preempts" "$DIR/log/sluicectld.log" | sort | tr '\n' ' ')" \
    "job=$a task=0 preempts job=$a task=1 preempts job=$a task=2 preempts job=$a task=3 preempts " \
    "each task preempts for itself (a hold per task)"
terms=$(cat dev.*.log | grep -c term)
is "$terms" 4 "each dev job was preempted once"
is "$(for j in $(cat dev.ids); do job_state "$j"; done | sort -u)" PENDING \
    "the dev jobs are requeued"
wait_for 10 eval "[ \$(cat a-*.out 2>/dev/null | grep -c task=) -eq 4 ]"
is "$(cat a-*.out | sed 's/.*gpus=//' | sort | tr '\n' ' ')" "0 1 2 3 " \
    "the tasks got one distinct GPU each"
# prod (tier 100) shares node01 with dev (tier 10): its launches run at
# SluiceDaemonNice (-10) until the exec, dev's at 0 (docs/noded.md)
is "$(grep 'state=launching' "$DIR/log/node01.log" | grep -o 'launch_nice=[-0-9]*' | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" \
    "4 launch_nice=-10 4 launch_nice=0 " \
    "node01 launched the four prod tasks at launch_nice=-10, the four dev jobs at 0"
if [ -e /proc/self/autogroup ]; then
    wait_for 10 eval "[ \$(cat ag-* 2>/dev/null | grep -c .) -eq 4 ]"
    is "$(cat ag-* | tr '\n' ' ')" "0 0 0 0 " \
        "once running, each prod task's autogroup is back at nice 0"
else
    ok "# SKIP no autogroups in this kernel"
fi

rep=$(sluice report preemptions --json)
is "$(echo "$rep" | jq '[.users[] | .caused] | add')" 4 \
    "the report counts four preemptions caused"
is "$(echo "$rep" | jq '[.partitions[] | select(.name == "dev") | .preempted] | add')" 4 \
    "and four suffered in dev"

touch stop
for j in $(cat dev.ids); do wait_for 30 job_ended "$j"; done
is "$(for j in $(cat dev.ids); do job_state "$j"; done | sort -u)" COMPLETED \
    "the dev jobs run again and complete after the prod tasks"
finish
