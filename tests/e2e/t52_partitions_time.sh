#!/usr/bin/env bash
# Partitions and time limits as the seed uses them: the default partition,
# MaxTime rejected (EnforcePartLimits=ALL) or held (NO) with the numbers,
# DefaultTime from MaxTime, a job ended TIMEOUT by SIGTERM then SIGKILL
# after its --signal warning, DOWN/DRAIN/INACTIVE/UP and MaxNodes changed
# at run time and kept across a controller restart.  Time limits run 20
# times faster (SLUICE_TEST_TIME_DIVISOR, for tests only): --time=1 is 3 s.
. "$(dirname "$0")/lib.sh"

export SLUICE_TEST_TIME_DIVISOR=20
CONF=$E2E_ROOT/tests/e2e/conf/parts.conf
cluster_start "$CONF"

# --- submission: default partition, MaxTime, DefaultTime -------------------
id=$(submit --wrap true)
wait_for 15 job_ended "$id"
is "$(squeue -h -t all -j "$id" -o '%P %T')" "backtest COMPLETED" \
    "a job without -p lands in the default partition (backtest)"
msg=$(sbatch -p dev --time=25:00:00 --wrap true 2>&1)
like "$msg" 'time limit 1-01:00:00 exceeds the MaxTime 1-00:00:00 of partition dev' \
    "a dev job asking 25:00:00 is rejected with the numbers (EnforcePartLimits=ALL)"
id=$(submit -p dev -H --wrap true)
is "$(squeue -h -j "$id" -o '%l')" "1-00:00:00" \
    "a dev job without --time gets MaxTime 1-00:00:00 (no DefaultTime)"
scancel "$id"

# --- the time limit: --signal warning, SIGTERM, SIGKILL, TIMEOUT -----------
cat >limit.sh <<'SH'
#!/bin/bash
trap 'echo usr1 >>limit.log' USR1
trap 'echo term >>limit.log' TERM
echo start >>limit.log
while true; do sleep 0.1; done
SH
id=$(submit -p prod --time=1 --signal=B:USR1@30 -o limit.out limit.sh)
wait_for 30 job_ended "$id"
is "$(squeue -h -t all -j "$id" -o '%T %r')" "TIMEOUT TimeLimit" \
    "a job over its limit ends TIMEOUT"
is "$(tr '\n' ' ' <limit.log)" "start usr1 term " \
    "--signal=B:USR1@30 arrived before the limit's SIGTERM, which the job trapped"
is "$(sacct -n -P -j "$id" -o State,ExitCode | tr '\n' ' ')" "TIMEOUT|0:0 CANCELLED|0:9 " \
    "it ignored SIGTERM and was killed by SIGKILL after KillWait (0:9 on the batch step, 0:0 on the job as Slurm records it)"
ev=$(sluice acct --events "$id" | awk 'NR > 1 {print $2}' | tr '\n' ' ')
is "$ev" "submit eligible start signal timeout end " \
    "its events: submitted, eligible, started, warned, timed out, ended"

# --- TimeLimit updates --------------------------------------------------------
id=$(submit -p dev -t 60 -H --wrap true)
scontrol update JobId="$id" TimeLimit=30
is "$(squeue -h -j "$id" -o '%l')" "30:00" "TimeLimit lowered to 30 minutes"
msg=$(scontrol update JobId="$id" TimeLimit=25:00:00 2>&1)
like "$msg" 'exceeds the MaxTime 1-00:00:00 of partition dev' \
    "not even an administrator may raise it past MaxTime"
scontrol update job "$id" TimeLimit=2:00:00
is "$(squeue -h -j "$id" -o '%l')" "2:00:00" "an administrator may raise it"
scancel "$id"

# --- partition states at run time --------------------------------------------
scontrol update PartitionName=dev State=DOWN
id=$(submit -p dev --wrap true)
wait_for 10 eval '[ "$(squeue -h -j '"$id"' -o %r)" = PartitionDown ]'
is "$(squeue -h -j "$id" -o '%T %r')" "PENDING PartitionDown" \
    "DOWN accepts a job and does not start it"
scontrol update PartitionName=dev State=DRAIN
msg=$(sbatch -p dev --wrap true 2>&1)
like "$msg" 'partition dev is DRAIN: it accepts no new jobs' "DRAIN rejects new jobs"
wait_for 15 job_ended "$id"
is "$(job_state "$id")" "COMPLETED" "DRAIN starts what was queued"
scontrol update PartitionName=dev State=INACTIVE
msg=$(sbatch -p dev --wrap true 2>&1)
like "$msg" 'partition dev is INACTIVE' "INACTIVE rejects new jobs"
scontrol update PartitionName=dev State=DOWN
id=$(submit -p dev --wrap true)
scontrol update PartitionName=dev State=UP
wait_for 15 job_ended "$id"
is "$(job_state "$id")" "COMPLETED" "UP again starts what waits"

scontrol update PartitionName=backtest MaxNodes=1
msg=$(sbatch -p backtest -N 2 --wrap true 2>&1)
like "$msg" 'requested 2 nodes but partition backtest allows at most 1 \(MaxNodes\)' \
    "MaxNodes rejects a larger job with the numbers"
msg=$(sluice update PartitionName=backtest MaxNodes=x 2>&1)
like "$msg" 'MaxNodes: expected a number' "a bad value is refused, naming the key"

# --- kept across a restart of the controller ---------------------------------
kill -9 "$(cat "$DIR/pids/sluicectld.pid")"
sleep 0.5
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err"
is "$(scontrol show partition backtest | grep -o 'MaxNodes=[^ ]*')" "MaxNodes=1" \
    "partition changes survive a controller restart"

# --- EnforcePartLimits=NO: held with the reason ------------------------------
cluster_stop
sed 's/^EnforcePartLimits=ALL/EnforcePartLimits=NO/' "$CONF" >"/tmp/t52-no-$$.conf"
cluster_start "/tmp/t52-no-$$.conf"
rm -f "/tmp/t52-no-$$.conf"
id=$(submit -p dev --time=25:00:00 --wrap true)
is "$(squeue -h -j "$id" -o '%T %r')" "PENDING PartitionTimeLimit" \
    "with EnforcePartLimits=NO an over-long dev job is held (PartitionTimeLimit)"
scontrol update PartitionName=backtest MaxNodes=1
id=$(submit -p backtest -N 2 --wrap true)
is "$(squeue -h -j "$id" -o '%T %r')" "PENDING PartitionNodeLimit" \
    "... and a job over MaxNodes too (PartitionNodeLimit)"
scontrol update PartitionName=backtest MaxNodes=UNLIMITED
wait_for 15 job_ended "$id"
is "$(job_state "$id")" "COMPLETED" "it starts once the limit allows it"

cluster_gone
finish
