#!/usr/bin/env bash
# Accounting output that tools parse, as Slurm 22.05 prints it, on a small
# cluster (prod and dev share node01, backtest has node02; PreemptMode
# REQUEUE): the commands the snakemake Slurm executor runs (sacctmgr -n -s
# list user, sacct -P -n --format=JobIdRaw,State -j, sacct --name, sshare
# -U), one sacct row per array task (ARRAY_TASK, JobIDRaw the job's own id),
# sacct -D after a preemption (PREEMPTED, then the run that completed),
# sprio's columns and held jobs, sacctmgr tree and show tres.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/preempt.conf"

# --- snakemake's account check: one account per line ----------------------
sacctmgr -i add account quant >/dev/null
sacctmgr -i add user root account=quant >/dev/null
is "$(sacctmgr -n -s list user root format=account%20 | tr -s ' ' | sed 's/^ //' | tr '\n' ' ')" \
    "root quant " "sacctmgr -n -s list user root format=account%20: a line per association"
is "$(sacctmgr -n list user root withassoc format=account%20 | wc -l)" 2 \
    "withassoc is a flag, not a user name"
is "$(sacctmgr -n -P show assoc tree format=Account,User | tr '\n' ',')" \
    "root|, root|root, quant|,  quant|root," "show assoc tree: one blank per level"
is "$(sacctmgr -n -P show tres | head -3 | tr '\n' ' ')" "cpu||1 mem||2 energy||3 " \
    "show tres: Slurm's TRES and ids"
is "$(sshare -U --format Account --noheader | sed 's/ *$//' | tr '\n' ' ')" \
    " root   quant " "sshare -U --format Account --noheader: the user's accounts"
is "$(sshare -a -P -o Account,User,RawShares | head -2 | tr '\n' ' ')" \
    "Account|User|RawShares root|| " "sshare -P -o: Slurm's fields, root's shares empty"

# --- sacctmgr dump / load: Slurm's flat file -----------------------------
sacctmgr -i add account research parent=quant Description=res >/dev/null
sacctmgr -i add user root account=research >/dev/null
sacctmgr dump file=acct.cfg
like "$(cat acct.cfg)" "Parent - 'quant'
Account - 'research':Description='res':Organization='[a-z]+':Fairshare=1
Parent - 'research'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1" \
    "dump: Parent, Account and User lines"
sacctmgr -i delete user root account=research >/dev/null
sacctmgr -i delete account research >/dev/null
is "$(sacctmgr load file=acct.cfg)" "sacctmgr load: 2 added from acct.cfg" "load adds what is missing"
is "$(sacctmgr -n -P show assoc where account=research format=Account,User | tr '\n' ' ')" \
    "research| research|root " "and the associations are back"
echo "Acount - 'x'" >bad.cfg
is "$(sacctmgr load file=bad.cfg 2>&1)" "sacctmgr: error: bad.cfg:1: unknown line kind \"Acount\"" \
    "a bad line is named with its file and line"

# --- sacctmgr show events: a node's DRAIN, open until it is resumed -------
scontrol update NodeName=node02 State=DRAIN Reason="disk swap"
like "$(sacctmgr -n -P show events)" "^e2e-preempt\|node02\|[0-9T:-]+\|Unknown\|DRAIN\|disk swap\|root\$" \
    "show events: the open DRAIN of node02"
scontrol update NodeName=node02 State=RESUME
like "$(sacctmgr -n -P show events where nodes=node02 format=NodeName,TimeEnd,State)" \
    "^node02\|[0-9]{4}-[0-9T:-]+\|DRAIN\$" "resumed: the event has its end"
is "$(sacctmgr -n -P show events where nodes=node01)" "" "where nodes= selects"

# --- arrays, --name, snakemake's status query ------------------------------
arr=$(submit -p backtest -a 1-2 -J arr --wrap true)
one=$(submit -p backtest -J snk --wrap true)
arr_done() {
    [ "$(sacct -n -P -X -j "$arr" -o State | grep -c COMPLETED)" = 2 ]
}
wait_for 30 arr_done || not_ok "array $arr did not end"
wait_for 30 job_ended "$one" || not_ok "job $one did not end"
rows=$(sacct -n -P -X -j "$arr" -o JobID,JobIDRaw,State | sort)
like "$rows" "^${arr}_1\\|[0-9]+\\|COMPLETED" "an array task's JobID is ARRAY_TASK"
like "$rows" "${arr}_2\\|${arr}\\|COMPLETED\$" "JobIDRaw is the job's own id"
is "$(echo "$rows" | wc -l)" 2 "sacct -j ARRAY shows every task"
like "$(sacct -n -P -j "$arr" -o JobID | grep batch | head -1)" "^${arr}_[12]\\.batch\$" \
    "the task's step rows are ARRAY_TASK.batch"
is "$(sacct -X --parsable2 --noheader --format=JobIdRaw,State --name arr | wc -l)" 2 \
    "sacct --name selects by job name"
is "$(sacct -P -n --format=JobIdRaw,State -j "$one" | tr '\n' ' ')" \
    "$one|COMPLETED $one.batch|COMPLETED " "snakemake's status query: sacct -P -n --format=JobIdRaw,State -j"
is "$(sacct -n -p --delimiter=, -X -j "$one" -o JobIDRaw,State,Comment)" "$one,COMPLETED,," \
    "--delimiter with -p"
is "$(sacct -n -b -X -j "$one" | tr -s ' ')" "$one COMPLETED 0:0 " "-b/--brief: JobID State ExitCode"

# --- sprio: factor columns with a weight, no held jobs ---------------------
blocker=$(submit -p backtest -J block -c 16 --wrap 'sleep 30')
wait_for 15 eval '[ "$(job_state '"$blocker"')" = RUNNING ]'
waiting=$(submit -p backtest -J wait --wrap true)
held=$(submit -p backtest -H -J held --wrap true)
is "$(sprio | head -1 | tr -s ' ' | sed 's/^ //')" "JOBID PARTITION PRIORITY" \
    "sprio without PriorityWeight*: no factor columns, as Slurm"
is "$(sprio -h -o %i | tr -d ' ' | tr '\n' ' ')" "$waiting " "sprio leaves the held job out"
scancel "$blocker" "$waiting" "$held"

# --- sacct -D after a preemption -------------------------------------------
d=$(submit -p dev -J victim --wrap 'while [ ! -e stop ]; do sleep 0.1; done')
wait_for 15 eval '[ "$(job_state '"$d"')" = RUNNING ]'
sleep 6 # past PreemptExemptTime
p=$(submit -p prod -J boss -c 16 --wrap 'sleep 1')
wait_for 30 job_ended "$p" || not_ok "the prod job did not end"
wait_for 30 eval '[ "$(job_state '"$d"')" = RUNNING ]'
touch stop
wait_for 30 job_ended "$d" || not_ok "the victim did not end"
is "$(sacct -n -P -X -j "$d" -o State,Restarts)" "COMPLETED|1" \
    "without -D the last run only"
is "$(sacct -D -n -P -X -j "$d" -o JobID,State,ExitCode | tr '\n' ' ')" \
    "$d|PREEMPTED|0:0 $d|COMPLETED|0:0 " "-D: the preempted run, then the one that completed"
is "$(sacct -D -n -P -j "$d" -o JobID,State | tail -1)" "$d.batch|COMPLETED" \
    "-D: the last run with its batch step"

finish
