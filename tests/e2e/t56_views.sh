#!/usr/bin/env bash
# The output that tools parse, column for column and key for key as Slurm
# 22.05 prints it (docs/cli.md; the layouts are in tests/unit/test_cli_views.c):
# sinfo -N -l and -O, squeue -O and its default state filter with -j, the
# unknown job id, and scontrol show job|node|partition's keys in Slurm's
# order, -o, show jobid, held jobs at Priority=0, limits in whole minutes,
# dependencies with their state.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# keys TEXT: the Key= names of scontrol's output, one line, in order.
keys() {
    tr ' ' '\n' | grep -o '^[A-Za-z_/:]*=' | tr -d '=' | tr '\n' ' '
}

# --- sinfo ---------------------------------------------------------------
is "$(sinfo -N -l | sed -n 2p)" \
    "NODELIST  NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON              " \
    "sinfo -N -l: Slurm's columns (%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E)"
is "$(sinfo -N -l | sed -n 3p)" \
    "node01        1 prod             idle   16   16:1:1  64000        0      1   (null) none                " \
    "sinfo -N -l: a node's row (S:C:T inferred from CPUs= alone)"
is "$(sinfo -a -h --Format='Nodes: ,GresUsed:' | tr '\n' ';')" \
    "1 gpu:0(IDX:N/A);2 gpu:0(IDX:N/A);1 gpu:0(IDX:N/A);" \
    "sinfo --Format='Nodes: ,GresUsed:' (prometheus-slurm-exporter's call): a row per partition"
is "$(sinfo -h -N -O NodeList:8,StateLong:.6,CPUs:5,Memory:.7,Weight:.3 | head -1)" \
    "node01    idle16     64000  1" "sinfo -O: widths, right justification, no blank between"
is "$(sinfo -O NodeList,Nodes | head -1)" \
    "NODELIST            NODES               " "sinfo -O: 20 columns without a size"
is "$(sinfo -h -S -P -o %P | tr '\n' ' ')" "prod dev backtest* " \
    "sinfo -S -P: partitions in descending order"
like "$(sinfo -O Bogus 2>&1)" 'invalid field "Bogus"' "sinfo -O: an unknown field is an error"
is "$(sinfo -h -N -o '%n|%f|%z|%d|%w|%X|%Y|%Z|%b|%e' -n node04)" \
    "node04|(null)|16:1:1|0|1|16|1|1|(null)|N/A" "sinfo -o: the node letters"

# --- jobs ----------------------------------------------------------------
run=$(submit -p backtest -J runner --time=1:30 --wrap 'sleep 300')
dep=$(submit -p backtest -J waiter --dependency=afterok:"$run" --wrap true)
held=$(submit -p backtest -J holder -H --wrap true)
done_id=$(submit -p backtest -J quick --wrap true)
wait_for 10 test "$(job_state "$run")" = RUNNING
wait_for 10 job_ended "$done_id"

is "$(squeue -h -j "$run" -o '%l')" "2:00" \
    "a 90-second limit shows as 2 minutes, as Slurm keeps it"
show=$(scontrol show job "$run")
like "$show" "TimeLimit=00:02:00 TimeMin=N/A" "scontrol: TimeLimit in whole minutes"
is "$(printf '%s\n' "$show" | keys)" \
    "JobId JobName UserId GroupId MCS_label Priority Nice Account QOS JobState Reason Dependency Requeue Restarts BatchFlag Reboot ExitCode RunTime TimeLimit TimeMin SubmitTime EligibleTime AccrueTime StartTime EndTime Deadline SuspendTime SecsPreSuspend LastSchedEval Scheduler Partition AllocNode:Sid ReqNodeList ExcNodeList NodeList BatchHost NumNodes NumCPUs NumTasks CPUs/Task ReqB:S:C:T TRES Socks/Node NtasksPerN:B:S:C CoreSpec MinCPUsNode MinMemoryNode MinTmpDiskNode Features DelayBoot OverSubscribe Contiguous Licenses Network Command WorkDir StdErr StdIn StdOut Power MailUser MailType " \
    "scontrol show job: Slurm 22.05's keys in its order"
is "$(printf '%s\n' "$show" | sed -n '5p')" \
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0" \
    "scontrol show job: Slurm's line grouping"
is "$(scontrol -o show job "$run" | wc -l)" 1 "scontrol -o: one line"
is "$(scontrol show jobid "$run" | head -1)" "JobId=$run JobName=runner" \
    "scontrol show jobid is show job"
like "$(scontrol -d show job "$run")" "DerivedExitCode=0:0" "scontrol -d adds DerivedExitCode"
is "$(scontrol -dd show job "$run" | sed -n '/^   BatchScript=$/,$p' | grep -c 'sleep 300')" 1 \
    "scontrol -dd lists the batch script after the record"
is "$(scontrol -d show job "$run" | grep -c BatchScript)" 0 "scontrol -d does not"
scontrol hold "$run"
is "$?" 0 "scontrol hold of a running job is accepted, as Slurm does"
is "$(job_state "$run")" RUNNING "and the job goes on running"
like "$(scontrol show job "$run")" "Priority=0 " "held, it shows Priority=0"
scontrol release "$run"
is "$?" 0 "scontrol release takes the hold back"
like "$(scontrol show job "$dep")" "Dependency=afterok:$run\\(unfulfilled\\)" \
    "a waiting dependency shows (unfulfilled)"
is "$(squeue -h -j "$dep" -o '%E')" "afterok:$run(unfulfilled)" "squeue %E the same"
like "$(scontrol show job "$held")" " Priority=0 " "a held job shows Priority=0"
is "$(squeue -h -j "$held" -o '%Q')" 0 "squeue %Q of a held job is 0"

arr=$(submit -p dev -J arr --array=1-2 --wrap 'sleep 300')
wait_for 10 test "$(squeue -h -j "${arr}_1" -o %T)" = RUNNING
like "$(scontrol show job "${arr}_1" | head -1)" "^JobId=[0-9]+ ArrayJobId=$arr ArrayTaskId=1 JobName=arr$" \
    "scontrol show job A_T shows that array task"
is "$(scontrol show job "${arr}_1" | grep -c '^JobId=')" 1 "... and only that one"
scancel "$arr"

# squeue -O
is "$(squeue -j "$run" -O JobID:8,Name:10,State:.10,StateCompact:3,TimeLimit:.6)" \
    "JOBID   NAME           STATEST TIME_L
$run       runner       RUNNINGR    2:00" \
    "squeue -O: Slurm's names, widths and justification, no blank between"
like "$(squeue -h -j "$run" -O 'JobID: ,Partition: ,NumCPUs: ,ReasonList:')" \
    "^$run backtest 1 node0[23]$" "squeue -O 'name:' prints the value whole, then the suffix"
like "$(squeue -O Bogus 2>&1)" 'invalid field "Bogus"' "squeue -O: an unknown field is an error"
is "$(squeue -h -j "$run" -o '%A|%k|%f|%v|%w|%h|%d|%z|%O')" \
    "$run|(null)|(null)|(null)|(null)|OK|0|*:*:*|0" "squeue -o: the letters added for Slurm"
is "$(squeue -h -t all -S -A -o %A | tr '\n' ' ')" \
    "$(squeue -h -t all -o %A | sort -rn | tr '\n' ' ')" "squeue -S -A: job ids descending"
like "$(squeue -o %all | head -1)" '^ACCOUNT\|TRES_PER_NODE\|MIN_CPUS\|' "squeue -o %all"

# the default state filter holds with -j; an unknown id is an error
is "$(squeue -h -j "$done_id")" "" "squeue -j of a finished job prints nothing"
is "$(squeue -j "$done_id" | wc -l)" 1 "... but the header"
is "$(squeue -h -t all -j "$done_id" -o %T)" COMPLETED "-t all shows it"
out=$(squeue -j 999999 2>&1)
is "$?:$out" "1:slurm_load_jobs error: Invalid job id specified" \
    "squeue -j of an unknown id: Slurm's error, exit 1"
out=$(scontrol show job 999999 2>&1)
is "$?:$out" "1:slurm_load_jobs error: Invalid job id specified" \
    "scontrol show job of an unknown id: the same"

# --- nodes and partitions --------------------------------------------------
is "$(scontrol show node node02 | keys)" \
    "NodeName Arch CoresPerSocket CPUAlloc CPUEfctv CPUTot CPULoad AvailableFeatures ActiveFeatures Gres GresUsed NodeAddr NodeHostName Version OS RealMemory AllocMem FreeMem Sockets Boards State ThreadsPerCore TmpDisk Weight Owner MCS_label Partitions BootTime SlurmdStartTime LastBusyTime CfgTRES AllocTRES CapWatts CurrentWatts AveWatts ExtSensorsJoules ExtSensorsWatts ExtSensorsTemp " \
    "scontrol show node: Slurm's keys in its order"
is "$(scontrol show partition backtest | keys)" \
    "PartitionName AllowGroups AllowAccounts AllowQos AllocNodes Default QoS DefaultTime DisableRootJobs ExclusiveUser GraceTime Hidden MaxNodes MaxTime MinNodes LLN MaxCPUsPerNode Nodes PriorityJobFactor PriorityTier RootOnly ReqResv OverSubscribe OverTimeLimit PreemptMode State TotalCPUs TotalNodes SelectTypeParameters JobDefaults DefMemPerNode MaxMemPerNode " \
    "scontrol show partition: Slurm's keys in its order"
like "$(scontrol show partition prod)" "DefaultTime=NONE " \
    "a partition without DefaultTime shows NONE"

scontrol update NodeName=node04 State=DRAIN Reason="fan broken" >/dev/null 2>&1
is "$(sinfo -R | head -1)" "REASON               USER      TIMESTAMP           NODELIST" \
    "sinfo -R: Slurm's columns"
like "$(sinfo -R -h)" '^fan broken +[A-Za-z0-9_-]+ +[0-9T:-]+ +node04$' \
    "sinfo -R: the reason, who set it and when"
like "$(scontrol show node node04)" "Reason=fan broken \\[" "scontrol show node: Reason= [user@time]"
scontrol update NodeName=node04 State=RESUME >/dev/null 2>&1

finish
