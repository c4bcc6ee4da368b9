#!/usr/bin/env bash
# sluice explain names the right obstacle, and squeue's reason column the
# principal one, on a local cluster (tests/e2e/conf/explain.conf: gpu =
# node01,node02 with 2 GPUs each, dev = node03 with MaxTime 1 h not
# enforced at submit): busy GPUs with the time they free up, the queue
# position behind another pending job, a shorter --time that would
# backfill now (and does, once set), another partition with room, a
# drained node (and that resuming it would start the job), a partition
# time limit, MaxNodes, a QOS limit with the numbers, holds, a begin time, a
# partition down or inactive, dependencies (waiting, never satisfied),
# and running and finished jobs.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/explain.conf"
ME=$(id -un)
sacctmgr -i add qos lim_qos >/dev/null
sacctmgr -i add account acc >/dev/null
sacctmgr -i add user "$ME" account=acc qos=normal,lim_qos >/dev/null

run() {
    submit -o /dev/null "$@" --wrap "while [ ! -e $WORK/go ]; do sleep 0.2; done"
}
reason() { squeue -h -t all -j "$1" -o %r; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
reason_is() { [ "$(reason "$1")" = "$2" ]; }

# --- busy GPUs: node01 full, node02 has 1 of 2 ------------------------------
A=$(run -p gpu --gres=gpu:2 -w node01 --time=120)
B=$(run -p gpu --gres=gpu:1 -w node02 --time=60)
wait_for 15 eval "running $A && running $B" || not_ok "the first two jobs run"
C=$(run -p gpu --gres=gpu:2 --time=120)
wait_for 5 reason_is "$C" Resources
is "$(reason "$C")" Resources "squeue: a job waiting for GPUs shows Resources"
out=$(sluice explain "$C")
like "$out" "is PENDING in partition gpu: Resources" "explain: the principal reason"
like "$out" "node01 +busy: lacks 2 GPUs .*when job $A ends" \
    "explain: node01 lacks 2 GPUs until job $A ends"
like "$out" "node02 +busy: lacks 1 GPU \(free .*1 GPU\).*when job $B ends" \
    "explain: node02 lacks 1 GPU (1 free) until job $B ends"
like "$out" "estimated start: [0-9T:-]+ \(in (59|1:00):" \
    "explain: the estimated start is when job $B ends (in an hour)"
j=$(sluice explain --json "$C")
is "$(printf '%s' "$j" | jq -r '[.nodes[].status] | join(",")')" "busy,busy" \
    "explain --json: both nodes busy"

# --- queue position and a shorter --time ----------------------------------
D=$(run -p gpu --gres=gpu:1 --time=180)
wait_for 5 reason_is "$D" Priority
is "$(reason "$D")" Priority "squeue: the job behind it shows Priority"
out=$(sluice explain "$D")
like "$out" "queue: number 2 in its partition; ahead: job $C \(priority [0-9]+, Resources\)" \
    "explain: queue position 2 behind job $C"
like "$out" "node02 +has room now" "explain: node02 has room (held for job $C's reservation)"
like "$out" "with a time limit of (00:59:00|01:00:00) or less it would start now" \
    "explain: a shorter --time would backfill now"
lim=$(sluice explain --json "$D" | jq -r '.suggestions[] | select(.kind == "time_limit") | .time_limit_s')
scontrol update JobId="$D" TimeLimit=$((lim / 60)) >/dev/null
wait_for 10 running "$D"
is "$(job_state "$D")" RUNNING "with the suggested time limit it starts at once (backfill)"

# --- another partition has room ---------------------------------------------
E=$(run -p gpu --gres=gpu:1 --time=30)
wait_for 5 reason_is "$E" Priority
out=$(sluice explain "$E")
like "$out" "partition dev has room now \(on node03\)" \
    "explain: partition dev has room now"

# --- a drained node; resuming it would start the job ------------------------
scontrol update NodeName=node03 State=DRAIN Reason=maint >/dev/null
F=$(run -p dev --time=30)
wait_for 5 reason_is "$F" "ReqNodeNotAvail, UnavailableNodes:node03"
is "$(reason "$F")" "ReqNodeNotAvail, UnavailableNodes:node03" \
    "squeue: ReqNodeNotAvail with UnavailableNodes for a drained node"
out=$(sluice explain "$F")
like "$out" "node03 +DRAIN: maint" "explain: node03 is drained for maint"
like "$out" "it would start on node03 if that node were resumed" \
    "explain: resuming node03 would start it"
scontrol update NodeName=node03 State=RESUME >/dev/null
wait_for 10 running "$F"
is "$(job_state "$F")" RUNNING "after the resume it runs"

# --- partition time limit (EnforcePartLimits=NO) ---------------------------
G=$(run -p dev --time=120)
wait_for 5 reason_is "$G" PartitionTimeLimit
is "$(reason "$G")" PartitionTimeLimit "squeue: over MaxTime shows PartitionTimeLimit"
out=$(sluice explain "$G")
like "$out" "its time limit 02:00:00 is over the partition's MaxTime 01:00:00" \
    "explain: the time limit against MaxTime"
like "$out" "its time limit must be at most 01:00:00|time limit of 01:00:00 or less" \
    "explain: suggests MaxTime as the limit"

# --- a QOS limit with the numbers --------------------------------------------
sacctmgr -i modify qos lim_qos set MaxJobsPerUser=1 >/dev/null
H1=$(run -p dev --time=10 -A acc --qos=lim_qos)
wait_for 10 running "$H1"
H2=$(run -p dev --time=10 -A acc --qos=lim_qos)
wait_for 5 reason_is "$H2" QOSMaxJobsPerUserLimit
is "$(reason "$H2")" QOSMaxJobsPerUserLimit "squeue: QOSMaxJobsPerUserLimit"
out=$(sluice explain "$H2")
like "$out" "limit: QOSMaxJobsPerUserLimit; user $ME in lim_qos has 1/1 jobs running" \
    "explain: the limit with who and the numbers"
like "$out" "the limit QOSMaxJobsPerUserLimit is the only obstacle" \
    "explain: the limit is the only obstacle"

# --- held, running and finished ----------------------------------------------
I=$(run -p dev --time=10 -H)
is "$(reason "$I")" JobHeldUser "squeue: JobHeldUser"
like "$(sluice explain "$I")" "held by its user" "explain: held by its user"
out=$(sluice explain "$A")
like "$out" "is RUNNING in partition gpu" "explain: a running job's state"
like "$out" "^  on node01 since [0-9T:-]+; its time limit ends it by" \
    "explain: a running job's node, start and end by its time limit"
scancel "$I"
wait_for 10 job_ended "$I"
like "$(sluice explain "$I")" "is CANCELLED" "explain: a finished job's final state"
# --- PartitionNodeLimit (MaxNodes, not enforced at submit) -----------------
scontrol update PartitionName=gpu MaxNodes=1 >/dev/null
N2=$(run -p gpu -N 2 --time=10)
is "$(reason "$N2")" PartitionNodeLimit "squeue: PartitionNodeLimit over MaxNodes"
like "$(sluice explain "$N2")" "2 nodes is outside the partition's MinNodes-MaxNodes" \
    "explain: the node count against MinNodes-MaxNodes"
scancel "$N2"
scontrol update PartitionName=gpu MaxNodes=UNLIMITED >/dev/null

# --- dependencies ------------------------------------------------------------
L=$(run -p dev --time=10 -d "afterok:$A")
wait_for 5 reason_is "$L" Dependency
is "$(reason "$L")" Dependency "squeue: Dependency"
like "$(sluice explain "$L")" "dependency afterok:$A: waiting; afterok on job $A \(RUNNING\)" \
    "explain: the job it waits on and that job's state"
M=$(run -p dev --time=10 -d "afterok:$I")
wait_for 5 reason_is "$M" DependencyNeverSatisfied
is "$(reason "$M")" DependencyNeverSatisfied "squeue: DependencyNeverSatisfied"
like "$(sluice explain "$M")" "dependency afterok:$I: can never be satisfied; afterok on job $I \(CANCELLED\)" \
    "explain: a dependency that can never be satisfied, and why"
out=$(sluice explain 999999 2>&1)
is "$?|$out" "1|sluice: explain: job 999999: Invalid job id specified" \
    "explain: an unknown job id is an error"

# --- the other reasons squeue shows, and what explain says of them ---------
K=$(run -p dev --time=10 --begin=now+3600)
is "$(reason "$K")" BeginTime "squeue: BeginTime for --begin in an hour"
like "$(sluice explain "$K")" "may not begin before [0-9T:-]+ \(in (59:|1:00:)" \
    "explain: the begin time"
scontrol hold "$K" >/dev/null
is "$(reason "$K")" JobHeldAdmin "squeue: JobHeldAdmin after an administrator's hold"
like "$(sluice explain "$K")" "held by an administrator" "explain: held by an administrator"
scontrol update PartitionName=gpu State=DOWN >/dev/null
wait_for 5 reason_is "$E" PartitionDown
is "$(reason "$E")" PartitionDown "squeue: PartitionDown"
like "$(sluice explain "$E")" "partition gpu is DOWN" "explain: the partition is down"
scontrol update PartitionName=gpu State=INACTIVE >/dev/null
wait_for 5 reason_is "$E" PartitionInactive
is "$(reason "$E")" PartitionInactive "squeue: PartitionInactive"
scontrol update PartitionName=gpu State=UP >/dev/null
wait_for 5 reason_is "$E" Priority
is "$(reason "$E")" Priority "squeue: back to Priority once the partition is up"

touch "$WORK/go"
cluster_gone
finish
