#!/usr/bin/env bash
# The batch job's side: Slurm 22.05's environment checked in a job
# (docs/environment.md); --open-mode=append|truncate; the "*** JOB N ON
# node CANCELLED AT ... DUE TO TIME LIMIT ***" line in the job's stderr
# (and the plain one for scancel); job mail through a fake MailProg that
# records its arguments (BEGIN, END, FAIL, TIME_LIMIT_50, REQUEUE), set
# by a reconfigure.  JOBSPEC keys the CLI does not send yet (open_mode,
# mail_type, mail_user) go in a hand-made SUBMIT (sl.py).
. "$(dirname "$0")/lib.sh"

export SLUICE_TEST_TIME_DIVISOR=20 # --time=1 is 3 s (tests only)
cluster_start "$E2E_ROOT/tests/e2e/conf/verbs.conf"

SOCK=$(sed -n 's/^StateSaveLocation=//p' "$SLUICE_CONF")/sluicectld.sock
export SOCK
state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }
# rawsub JSON: a SUBMIT of the job object JSON (script, work_dir added);
# prints the job id
rawsub() {
    python3 - "$1" <<PY
import json, sys
sys.path.insert(0, "$E2E_ROOT/tests/e2e")
import sl
job = json.loads(sys.argv[1])
job.setdefault("work_dir", "$WORK")
r = sl.call(sl.SUBMIT, {"job": job})
print(r.get("job_id", r))
PY
}
envof() { sed -n "s/^$1=//p" env.out; }

# --- the environment ------------------------------------------------------------
j=$(submit -J envjob -N 2 --ntasks-per-node=2 -c 2 --mem-per-cpu=100 \
    --time=10 -o env.out --wrap 'env | sort')
wait_for 20 job_ended "$j"
is "$(state_of "$j")" COMPLETED "the environment job completes"
is "$(envof SLURM_JOB_ID) $(envof SLURM_JOB_NAME)" "$j envjob" "SLURM_JOB_ID, SLURM_JOB_NAME"
is "$(envof SLURM_JOB_NUM_NODES) $(envof SLURM_NNODES)" "2 2" "SLURM_JOB_NUM_NODES"
is "$(envof SLURM_JOB_CPUS_PER_NODE)" "4(x2)" "SLURM_JOB_CPUS_PER_NODE compressed as Slurm does"
is "$(envof SLURM_TASKS_PER_NODE)" "2(x2)" "SLURM_TASKS_PER_NODE"
is "$(envof SLURM_NTASKS) $(envof SLURM_NPROCS)" "4 4" "SLURM_NTASKS, SLURM_NPROCS"
is "$(envof SLURM_NTASKS_PER_NODE)" 2 "SLURM_NTASKS_PER_NODE"
is "$(envof SLURM_CPUS_PER_TASK)" 2 "SLURM_CPUS_PER_TASK"
is "$(envof SLURM_MEM_PER_CPU)" 100 "SLURM_MEM_PER_CPU"
is "$(envof SLURM_MEM_PER_NODE)" "" "no SLURM_MEM_PER_NODE with --mem-per-cpu"
is "$(envof SLURM_CLUSTER_NAME)" e2e-verbs "SLURM_CLUSTER_NAME"
is "$(envof SLURM_TOPOLOGY_ADDR) $(envof SLURM_TOPOLOGY_ADDR_PATTERN)" "node01 node" \
    "SLURM_TOPOLOGY_ADDR, _PATTERN"
is "$(envof SLURM_PRIO_PROCESS)" 0 "SLURM_PRIO_PROCESS"
is "$(envof ENVIRONMENT)" BATCH "ENVIRONMENT=BATCH"
like "$(envof SLURM_CONF)" '/.+' "SLURM_CONF names the node's configuration"
st=$(envof SLURM_JOB_START_TIME)
en=$(envof SLURM_JOB_END_TIME)
like "$st" '^[0-9]{10}$' "SLURM_JOB_START_TIME is an epoch"
is "$((en - st))" 600 "SLURM_JOB_END_TIME is the start plus the limit"

# --- get-user-env: the login environment under the job's -------------------------
j=$(rawsub '{"name":"gue","script":"#!/bin/sh\necho \"login=$LOGNAME g=$SLURM_GET_USER_ENV\"\n","std_out":"gue.out","get_user_env":true,"environment":{"KEEP":"1"}}')
wait_for 20 job_ended "$j"
is "$(cat gue.out)" "login=$(id -un) g=1" "--get-user-env: the login shell's variables (LOGNAME) are there"
j=$(rawsub '{"name":"nogue","script":"#!/bin/sh\necho \"login=$LOGNAME\"\n","std_out":"nogue.out","environment":{"KEEP":"1"}}')
wait_for 20 job_ended "$j"
is "$(cat nogue.out)" "login=" "without it only the submitted environment"

# --- open-mode ----------------------------------------------------------------------
printf 'old line\n' >om.out
j=$(submit -o om.out --wrap 'echo fresh')
wait_for 20 job_ended "$j"
is "$(cat om.out)" fresh "by default the output file is truncated"
printf 'old line\n' >om.out
j=$(rawsub '{"name":"om","script":"#!/bin/sh\necho appended\n","std_out":"om.out","open_mode":"append"}')
wait_for 20 job_ended "$j"
is "$(cat om.out)" "old line
appended" "open_mode=append keeps what was there"
j=$(rawsub '{"name":"om2","script":"#!/bin/sh\ntrue\n","open_mode":"sideways"}')
like "$j" "open_mode .*expected append or truncate" "a bad open_mode is refused"

# --- the cancel lines ---------------------------------------------------------------
j=$(submit --time=1 -o tl.out --wrap 'echo started; sleep 300')
wait_for 30 job_ended "$j"
is "$(state_of "$j")" TIMEOUT "a job past its limit ends TIMEOUT"
like "$(tail -1 tl.out)" "^slurmstepd: error: \*\*\* JOB $j ON node01 CANCELLED AT [0-9-]{10}T[0-9:]{8} DUE TO TIME LIMIT \*\*\*$" \
    "its stderr gets Slurm's TIME LIMIT line"
j=$(submit -o sc.out --wrap 'echo started; sleep 300')
wait_for 15 grep -q started sc.out
scancel "$j"
wait_for 15 job_ended "$j"
like "$(tail -1 sc.out)" "^slurmstepd: error: \*\*\* JOB $j ON node01 CANCELLED AT [0-9T:-]{19} \*\*\*$" \
    "scancel: the plain CANCELLED line"

# --- mail ------------------------------------------------------------------------------
cat >fakemail <<SH
#!/bin/sh
printf '%s|%s|%s|%s|%s\n' "\$1" "\$2" "\$3" "\$SLURM_JOB_ID" "\$SLURM_JOB_MAIL_TYPE" >>$WORK/mail.log
SH
chmod 755 fakemail
echo "MailProg=$WORK/fakemail" >>"$SLUICE_CONF"
like "$(scontrol reconfigure)" "MailProg set: $WORK/fakemail" "reconfigure takes MailProg"
like "$(scontrol show config)" "MailProg                = $WORK/fakemail" "show config has it"
wait_for 15 eval '[ "$(sinfo -h -o %t | sort -u)" = idle ]'
j=$(rawsub '{"name":"mailer","script":"#!/bin/sh\ntrue\n","mail_type":"begin,end","mail_user":"ops@example.org"}')
wait_for 20 job_ended "$j"
wait_for 10 eval "[ \$(grep -c '|$j|' mail.log 2>/dev/null) -ge 2 ]"
like "$(grep "|$j|BEGIN" mail.log)" "^-s\|Slurm Job_id=$j Name=mailer Began, Queued time [0-9:]{8}\|ops@example.org\|$j\|BEGIN$" \
    "BEGIN: MailProg -s 'Slurm Job_id=N Name=X Began, Queued time ...' USER"
like "$(grep "|$j|END" mail.log)" "^-s\|Slurm Job_id=$j Name=mailer Ended, Run time [0-9:]{8}, COMPLETED, ExitCode 0\|ops@example.org\|" \
    "END: Slurm's Ended subject"
j=$(rawsub '{"name":"failer","script":"#!/bin/sh\nexit 3\n","mail_type":"FAIL"}')
wait_for 20 job_ended "$j"
wait_for 10 grep -q "|$j|FAIL" mail.log
like "$(grep "|$j|" mail.log)" "Failed, Run time [0-9:]{8}, FAILED, ExitCode 3\|root\|$j\|FAIL$" \
    "FAIL goes to the submitting user when no mail_user is given"
is "$(grep -c "|$j|" mail.log)" 1 "and only the FAIL mail"
j=$(rawsub '{"name":"half","script":"#!/bin/sh\nsleep 300\n","time_limit_s":60,"mail_type":"TIME_LIMIT_50,REQUEUE"}')
wait_for 15 grep -q "|$j|TIME_LIMIT_50" mail.log
like "$(grep "|$j|TIME_LIMIT_50" mail.log)" "Reached 50% of time limit" "TIME_LIMIT_50 at half the limit"
scontrol requeue "$j"
wait_for 15 grep -q "|$j|REQUEUE" mail.log
like "$(grep "|$j|REQUEUE" mail.log)" "Slurm Job_id=$j Name=half Requeued" "REQUEUE on scontrol requeue"
scancel "$j"
bad=$(rawsub '{"name":"x","script":"#!/bin/sh\ntrue\n","mail_type":"BEGINNING"}')
like "$bad" 'invalid mail type "BEGINNING"' "a misspelled mail type is refused"
zombies() { ps -eo stat=,args= | grep -c '^Z.*fakemail'; }
wait_for 5 eval '[ "$(zombies)" -eq 0 ]'
is "$(zombies)" 0 "no zombie mail processes (the controller reaps them)"

finish
