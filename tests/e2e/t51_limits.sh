#!/usr/bin/env bash
# QOS and association limits enforced by a running controller on the
# seed's cluster (AccountingStorageEnforce=associations,limits,qos; the
# test is root, an administrator): MaxSubmitJobsPerUser refuses with the
# numbers, MaxJobsPerUser and MaxJobs hold jobs with Slurm's reasons and
# release them when a job ends or the limit is raised, GrpTRES=gres/gpu
# holds the third GPU job, MaxWall with DenyOnLimit refuses at submit,
# and usage survives kill -9 of the controller and `sluice up --dir`.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
ME=$(id -un)

# a dev job in account quant that runs until $WORK/go.N exists
job() {
    local n=$1
    shift
    submit -p dev -A quant -o /dev/null "$@" \
        --wrap "while [ ! -e $WORK/go.$n ]; do sleep 0.1; done"
}
state_reason() { squeue -h -t all -j "$1" -o '%T %r'; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
pending_for() { [ "$(state_reason "$1")" = "PENDING $2" ]; }
qos_set() { sacctmgr -i modify qos dev_qos set "$@" >/dev/null; }

sacctmgr -i add qos dev_qos >/dev/null
sacctmgr -i add account quant >/dev/null
out=$(sacctmgr -i add user "$ME" account=quant qos=normal,dev_qos defaultqos=dev_qos 2>&1)
is "$?" 0 "add user $ME with account quant and QOS normal,dev_qos"
is "$(sacctmgr -n -P show assoc where user="$ME" account=quant format=Account,QOS,DefQOS)" \
    "quant|normal,dev_qos|dev_qos" "the association has the QOS list and default"

# --- MaxSubmitJobsPerUser=3: three in, the fourth refused with numbers -----
qos_set MaxSubmitJobsPerUser=3
ids=
for i in 1 2 3; do ids="$ids $(job x -H)"; done
is "$(squeue -h -o %q | sort -u)" dev_qos "three held jobs in dev_qos (the default QOS)"
out=$(job x -H 2>&1)
is "$out" "sbatch: error: Batch job submission failed: QOSMaxSubmitJobPerUserLimit: $ME has 3/3 jobs in dev_qos" \
    "the fourth is refused naming QOSMaxSubmitJobPerUserLimit with 3/3"
# shellcheck disable=SC2086
scancel $ids
wait_for 10 eval '[ -z "$(squeue -h)" ]'
id=$(job x -H 2>&1)
like "$id" '^[0-9]+$' "after scancel the user may submit again"
scancel "$id"
qos_set MaxSubmitJobsPerUser=-1

# --- MaxJobsPerUser=1: one runs, the rest wait, the next starts ----------
qos_set MaxJobsPerUser=1
a=$(job a)
b=$(job b)
c=$(job c)
wait_for 15 running "$a"
wait_for 5 pending_for "$b" QOSMaxJobsPerUserLimit
is "$(state_reason "$b")|$(state_reason "$c")" \
    "PENDING QOSMaxJobsPerUserLimit|PENDING QOSMaxJobsPerUserLimit" \
    "with MaxJobsPerUser=1 one runs and the others wait with QOSMaxJobsPerUserLimit"
like "$(scontrol show job "$b")" "Reason=QOSMaxJobsPerUserLimit;_user_${ME}_in_dev_qos_has_1/1_jobs_running" \
    "scontrol show job gives the long form with the numbers"

# --- kill -9 of the controller: the running job still counts ---------------
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err" || not_ok "restart the controller"
wait_for 10 pending_for "$b" QOSMaxJobsPerUserLimit
is "$(job_state "$a")|$(state_reason "$b")" "RUNNING|PENDING QOSMaxJobsPerUserLimit" \
    "after kill -9 and sluice up --dir the limit still holds the second job"
qos_set MaxSubmitJobsPerUser=3
out=$(job x -H 2>&1)
like "$out" "QOSMaxSubmitJobPerUserLimit: $ME has 3/3 jobs in dev_qos" \
    "the recovered jobs count toward MaxSubmitJobsPerUser"
qos_set MaxSubmitJobsPerUser=-1

touch "$WORK/go.a"
wait_for 15 running "$b"
is "$(job_state "$a")|$(job_state "$b")|$(state_reason "$c")" \
    "COMPLETED|RUNNING|PENDING QOSMaxJobsPerUserLimit" \
    "when the first ends the next starts, the third still waits"

# --- raising the limit releases waiting jobs at once -----------------------
qos_set MaxJobsPerUser=2
if wait_for 5 running "$c"; then
    ok "sacctmgr modify ... MaxJobsPerUser=2 starts the waiting job at once"
else
    not_ok "sacctmgr modify ... MaxJobsPerUser=2 starts the waiting job at once"
fi
touch "$WORK/go.b" "$WORK/go.c"
wait_for 15 job_ended "$c"
qos_set MaxJobsPerUser=-1

# --- GrpTRES=gres/gpu=2: the third 1-GPU job waits with QOSGrpGRES --------
qos_set GrpTRES=gres/gpu=2
g1=$(job g --gres=gpu:1)
g2=$(job g --gres=gpu:1)
g3=$(job g --gres=gpu:1)
wait_for 15 running "$g2"
wait_for 5 pending_for "$g3" QOSGrpGRES
is "$(job_state "$g1")|$(job_state "$g2")|$(state_reason "$g3")" \
    "RUNNING|RUNNING|PENDING QOSGrpGRES" \
    "GrpTRES=gres/gpu=2 runs two 1-GPU jobs and holds the third with QOSGrpGRES"
like "$(scontrol show job "$g3")" "Reason=QOSGrpGRES;_dev_qos_has_gres/gpu=2/2_in_use" \
    "the long form names gres/gpu=2/2"
touch "$WORK/go.g"
wait_for 15 job_ended "$g3"
is "$(job_state "$g3")" COMPLETED "the third GPU job ran once the others ended"
qos_set GrpTRES=gres/gpu=-1

# --- an association limit: MaxJobs=1 on the user --------------------------
sacctmgr -i modify user where name="$ME" account=quant set MaxJobs=1 >/dev/null
is "$(sacctmgr -n -P show assoc where user="$ME" account=quant format=MaxJobs)" 1 \
    "modify user ... set MaxJobs=1"
u1=$(job u)
u2=$(job u)
wait_for 15 running "$u1"
wait_for 5 pending_for "$u2" AssocMaxJobsLimit
is "$(state_reason "$u2")" "PENDING AssocMaxJobsLimit" \
    "an association's MaxJobs=1 holds the second job with AssocMaxJobsLimit"
sacctmgr -i modify user where name="$ME" account=quant set MaxJobs=-1 >/dev/null
if wait_for 5 running "$u2"; then
    ok "clearing MaxJobs releases it at once"
else
    not_ok "clearing MaxJobs releases it at once"
fi
touch "$WORK/go.u"
wait_for 15 job_ended "$u2"

# --- MaxWall with DenyOnLimit refuses at submit ----------------------------
qos_set MaxWall=01:00:00 Flags=DenyOnLimit
out=$(job w --time=2:00:00 -H 2>&1)
is "$out" "sbatch: error: Batch job submission failed: QOSMaxWallDurationPerJobLimit: time limit 02:00:00 is over the MaxWall 01:00:00 of dev_qos" \
    "MaxWall=01:00:00 with DenyOnLimit refuses --time=2:00:00 with the numbers"
id=$(job w --time=30 -H 2>&1)
like "$id" '^[0-9]+$' "a job within MaxWall is accepted"
scancel "$id"

cluster_gone
finish
