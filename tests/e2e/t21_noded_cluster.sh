#!/usr/bin/env bash
# sluiced inside a real local cluster (sluicectld + four sluiced through
# `sluice up`): what a job sees (SLURM_*/SLUICE_* variables, output file
# patterns, its working directory), jobs run as their submitter, a launch
# the node cannot honour is reported with its reason, and node daemons
# killed while their jobs run or end: the ends are still recorded.
if [ ! -f "$(dirname "$0")/lib.sh" ]; then
    echo "ok 1 # SKIP tests/e2e/lib.sh (the CLI's) is not here yet"
    exit 0
fi
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
chmod 755 "$DIR" "$WORK"

# --- what a job sees -------------------------------------------------------
cat >env.sh <<'EOS'
#!/bin/sh
#SBATCH -J envjob
#SBATCH -o %x-%u-%N-%j.out
#SBATCH -e err-%A_%a.txt
echo "ids $SLURM_JOB_ID $SLUICE_JOB_ID $SLURM_JOBID"
echo "job $SLURM_JOB_NAME $SLURM_JOB_PARTITION $SLURM_JOB_NODELIST $SLURMD_NODENAME $SLURM_NODEID cpus=$SLURM_CPUS_ON_NODE user=$SLURM_JOB_USER"
echo "dirs $SLURM_SUBMIT_DIR $(pwd) args=$*"
echo "to stderr" >&2
EOS
id=$(submit -p dev -c 2 env.sh a1 a2)
wait_for 15 job_ended "$id"
out=$(cat "envjob-root-node04-$id.out" 2>&1)
like "$out" "^ids $id $id $id$" "SLURM_JOB_ID, SLUICE_JOB_ID, SLURM_JOBID"
like "$out" "^job envjob dev node04 node04 0 cpus=2 user=root$" \
    "job name, partition, node list, node name, cpus, user"
like "$out" "^dirs $WORK $WORK args=a1 a2$" "submit dir, working dir, arguments"
is "$(cat "err-${id}_4294967294.txt" 2>&1)" "to stderr" \
    "-e with %A_%a: a job outside an array gets Slurm's 4294967294"

# --- jobs run as their submitter --------------------------------------------
user=sluicet21$$
if useradd -M -d /nonexistent -s /bin/sh "$user" 2>/dev/null; then
    trap 'userdel "$user" 2>/dev/null; cluster_stop' EXIT
    uid=$(id -u "$user")
    gid=$(id -g "$user")
    # The seed's configuration enforces associations: give the user one.
    sacctmgr -i add user "$user" account=root >/dev/null
    mkdir -p "$WORK/u"
    chown "$user" "$WORK/u"
    uidjob=$(cd "$WORK/u" && runuser -u "$user" -- env SLUICE_CONF="$SLUICE_CONF" \
        "$E2E_BIN/sbatch" --parsable -p dev -o id.out --wrap 'id -u; id -g; touch mine' 2>&1)
    wait_for 15 job_ended "$uidjob"
    is "$(tr '\n' ' ' <"$WORK/u/id.out" 2>&1)" "$uid $gid " \
        "the job runs as its submitter (id -u, id -g)"
    is "$(stat -c %U "$WORK/u/id.out" "$WORK/u/mine" 2>&1 | sort -u)" "$user" \
        "its output and files belong to the submitter"
    userdel "$user" 2>/dev/null
else
    ok "# skip jobs as another user (useradd failed)"
    ok "# skip output owned by the submitter"
fi

# --- a launch the node cannot honour ----------------------------------------
bad=$(submit -p dev -D /nonexistent/dir --wrap true 2>&1)
wait_for 15 job_ended "$bad"
is "$(job_state "$bad")" FAILED "a job whose working directory is missing fails"
like "$(squeue -h -t all -j "$bad" -o %r)" "cannot chdir to /nonexistent/dir" \
    "the reason names the directory"

# --- a node daemon killed while its job runs --------------------------------
cat >wait.sh <<'EOS'
#!/bin/sh
while [ ! -e "$1" ]; do sleep 0.05; done
exit "$2"
EOS
run=$(submit -p dev -o wait-%j.out wait.sh go4 4)
wait_for 15 test "$(job_state "$run")" = RUNNING
kill -9 "$(cat "$DIR/pids/node04.pid")"
sleep 0.5
is "$(job_state "$run")" RUNNING "the job keeps running without its sluiced"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err"
touch go4
wait_for 15 job_ended "$run"
like "$(scontrol show job "$run")" "JobState=FAILED" \
    "after a restart of sluiced its end is recorded"
like "$(scontrol show job "$run")" "ExitCode=4:0" "with the job's exit code"

# --- a job that ends while its sluiced is down ------------------------------
run=$(submit -p dev -o wait-%j.out wait.sh go5 5)
wait_for 15 test "$(job_state "$run")" = RUNNING
kill -9 "$(cat "$DIR/pids/node04.pid")"
touch go5
if wait_for 10 test -e "$DIR/spool/node04/job.$run/status"; then
    ok "the supervisor records the end in the spool"
else
    not_ok "the supervisor records the end in the spool"
fi
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up3.err"
wait_for 15 job_ended "$run"
like "$(scontrol show job "$run")" "ExitCode=5:0" \
    "an end that happened while sluiced was down is reported on registration"
wait_for 5 test ! -e "$DIR/spool/node04/job.$run"
is "$(ls "$DIR/spool/node04" | grep -c '^job\.')" 0 \
    "acknowledged ends leave the spool"

finish
