#!/usr/bin/env bash
# Priority, fair-share and backfill in the controller, on a one-node local
# cluster (2 CPUs) with small PriorityMaxAge and PriorityCalcPeriod:
#  - age only: of two equal held-then-released jobs, the one eligible
#    longer runs first (held time does not count), sprio shows why, and
#    says that QOS priorities differ while PriorityWeightQOS=0;
#  - squeue --start gives a blocked job a time within the backfill window;
#  - a short job backfills ahead of a blocked big job, a too-long one waits;
#  - QOS weight: a prod_qos job overtakes queued backtest_qos jobs;
#  - fair-share: an association with recent usage falls behind a fresh one
#    at equal everything else, and sshare/sprio show why.
. "$(dirname "$0")/lib.sh"

running() {
    [ "$(job_state "$1")" = RUNNING ]
}

# --- age: eligible time, not submit time -----------------------------------
cluster_start "$E2E_ROOT/tests/e2e/conf/prio_age.conf"
block=$(submit -c 2 -t 1 --wrap 'sleep 30')
wait_for 10 running "$block"
older=$(submit -H -c 2 -t 1 --wrap 'sleep 30')
newer=$(submit -H -c 2 -t 1 --wrap 'sleep 30')
scontrol release "$newer"
sleep 3
scontrol release "$older"
if wait_for 10 higher "$newer" "$older"; then
    ok "the job released first gets the higher age priority"
else
    not_ok "the job released first gets the higher age priority"
    sprio -l 2>&1 | sed 's/^/#   /'
fi
age_n=$(sprio -h -n -j "$newer" -o '%a' | tr -d ' ')
age_o=$(sprio -h -n -j "$older" -o '%a' | tr -d ' ')
like "$age_n $age_o" '^0\.[0-9]+ 0\.[0-9]+$' "sprio -n prints the normalised age factors ($age_n > $age_o)"
is "$(sprio -w -h -o '%i %A %F %Q' | tr -s ' ' | sed 's/^ //')" "Weights 1000 0 0" \
    "sprio -w prints the weights"

# squeue --start: the blocked jobs wait for the running one's time limit
now=$(date +%s)
start=$(squeue --start -h -j "$newer" -o '%S')
start_s=$(date -d "$start" +%s 2>/dev/null || echo 0)
if [ "$start_s" -ge "$now" ] && [ "$start_s" -le $((now + 3600)) ]; then
    ok "squeue --start: $start, within the backfill window"
else
    not_ok "squeue --start gives a time within the backfill window (got '$start')"
fi
like "$(squeue --start)" 'START_TIME' "squeue --start prints START_TIME"

# the seed's setup: QOS priorities but no QOS weight
sacctmgr -i add qos prod_qos priority=1000 >/dev/null
sacctmgr -i add qos backtest_qos priority=500 >/dev/null
sacctmgr -i add qos dev_qos priority=100 >/dev/null
like "$(sprio 2>&1 >/dev/null)" \
    '^note: QOS priorities differ \(prod_qos 1000, backtest_qos 500, dev_qos 100, normal 0\) but PriorityWeightQOS=0: QOS does not affect priority$' \
    "sprio notes that the QOS priorities do nothing"

scancel "$block"
wait_for 15 running "$newer"
is "$(job_state "$newer") $(job_state "$older")" "RUNNING PENDING" \
    "on the full node, the job eligible longer runs first"
scancel "$newer" "$older"
wait_for 10 job_ended "$older"

# --- backfill: a short job ahead of a blocked big one ----------------------
half=$(submit -c 1 -t 1 --wrap 'sleep 60')
wait_for 10 running "$half"
big=$(submit -c 2 -t 1 --wrap true)
long=$(submit -c 1 -t 5 --wrap 'sleep 60')
short=$(submit -c 1 -t 0:20 --wrap 'sleep 60')
wait_for 10 running "$short"
is "$(job_state "$short") $(job_state "$long") $(job_state "$big")" \
    "RUNNING PENDING PENDING" \
    "a short job backfills; a too-long one waits behind the big job's reservation"
like "$(sdiag)" 'Total backfilled jobs: +[1-9]' "sdiag counts the backfilled job"
like "$(sdiag --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["main"]["passes"], d["backfill"]["cycles"])')" \
    '^[1-9][0-9]* [1-9][0-9]*$' "sdiag --json: main passes and backfill cycles"
cluster_stop

# --- QOS and fair-share weights ---------------------------------------------
cluster_start "$E2E_ROOT/tests/e2e/conf/prio_qos_fs.conf"
sacctmgr -i add qos prod_qos priority=1000 >/dev/null
sacctmgr -i add qos backtest_qos priority=500 >/dev/null
sacctmgr -i add account heavy >/dev/null
sacctmgr -i add account fresh >/dev/null
sacctmgr -i add user root account=heavy,fresh >/dev/null
block=$(submit -A heavy -c 2 -t 1 --wrap 'sleep 60')
wait_for 10 running "$block"
bt1=$(submit -A heavy --qos backtest_qos -c 2 -t 1 --wrap 'sleep 60')
bt2=$(submit -A heavy --qos backtest_qos -c 2 -t 1 --wrap 'sleep 60')
prod=$(submit -A heavy --qos prod_qos -c 2 -t 1 --wrap 'sleep 60')
wait_for 5 higher "$prod" "$bt1"
scancel "$block"
wait_for 15 running "$prod"
is "$(job_state "$prod") $(job_state "$bt1") $(job_state "$bt2")" \
    "RUNNING PENDING PENDING" "the prod_qos job overtakes the queued backtest_qos jobs"
scancel "$bt1" "$bt2"

# heavy has used the node (the blocker, the prod job); fresh has not
h=$(submit -A heavy -c 2 -t 1 --wrap 'sleep 60')
f=$(submit -A fresh -c 2 -t 1 --wrap 'sleep 60')
if wait_for 10 higher "$f" "$h"; then
    ok "the fresh association's job has the higher priority"
else
    not_ok "the fresh association's job has the higher priority"
    sprio -l 2>&1 | sed 's/^/#   /'
fi
fs_h=$(sprio -h -j "$h" -o '%F' | tr -d ' ')
fs_f=$(sprio -h -j "$f" -o '%F' | tr -d ' ')
[ "${fs_f:-0}" -gt "${fs_h:-0}" ] && ok "sprio: FAIRSHARE $fs_f (fresh) > $fs_h (heavy)" ||
    not_ok "sprio shows the fair-share factor as the difference ($fs_f vs $fs_h)"
share=$(sshare -a -n -A heavy,fresh -u root)
like "$(echo "$share" | awk '$1 == "heavy" && $2 == "root" {print $5}')" '^[1-9][0-9]*$' \
    "sshare: heavy/root has raw usage"
fsh=$(echo "$share" | awk '$1 == "heavy" && $2 == "root" {print $7}')
fsf=$(echo "$share" | awk '$1 == "fresh" && $2 == "root" {print $5 " " $7}')
if [ "${fsf%% *}" = 0 ] && awk -v f="${fsf#* }" -v h="$fsh" 'BEGIN {exit !(f > h)}'; then
    ok "sshare: fresh/root has no usage and the higher FairShare (${fsf#* } > $fsh)"
else
    not_ok "sshare: fresh/root has no usage and the higher FairShare (got '$fsf' vs '$fsh')"
fi
scancel "$prod"
wait_for 15 running "$f"
is "$(job_state "$f") $(job_state "$h")" "RUNNING PENDING" \
    "the fresh association's job runs before the heavy one's, submitted earlier"
like "$(sshare --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["algorithm"], len(d["shares"]))')" \
    '^fair_tree [0-9]+$' "sshare --json"
finish
