#!/usr/bin/env bash
# Two Unix users made by this test, on a local cluster started by root:
# each submits through the controller's unix socket (identified by
# SO_PEERCRED), their jobs run as them (uid, gid, file owner); neither can
# cancel, hold, release or update the other's jobs, and root can.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "creating users needs root"
command -v useradd >/dev/null && command -v runuser >/dev/null ||
    skip_all "useradd or runuser is not installed"

UA=sluicea$$
UB=sluiceb$$
GA=sluiceg$$
USERS_MADE=
GROUP_MADE=

stop_all() {
    cluster_stop
    for u in $USERS_MADE; do
        userdel "$u" 2>/dev/null
    done
    [ -z "$GROUP_MADE" ] || groupdel "$GA" 2>/dev/null
}

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
trap stop_all EXIT
for u in "$UA" "$UB"; do
    if ! useradd -M -d /nonexistent -s /bin/sh "$u"; then
        not_ok "useradd $u"
        finish
        exit
    fi
    USERS_MADE="$USERS_MADE $u"
    # The seed's configuration enforces associations: give each an account.
    sacctmgr -i add user "$u" account=root >/dev/null
done
# Other users must reach the working directories under DIR.
chmod 755 "$DIR" "$WORK"
mkdir -p "$WORK/$UA" "$WORK/$UB"
chown "$UA" "$WORK/$UA"
chown "$UB" "$WORK/$UB"

# as USER CMD ARGS...: a Slurm command run by USER in their directory.
as() {
    local u=$1 cmd=$2
    shift 2
    (cd "$WORK/$u" && runuser -u "$u" -- env SLUICE_CONF="$SLUICE_CONF" \
        "$E2E_BIN/$cmd" "$@")
}

# A supplementary group for A, before A's first job: sluiced keeps the
# groups it resolved for JOBS_USER_TTL_S (10 s).
GROUP_OK=
groupadd "$GA" && GROUP_MADE=1 && usermod -aG "$GA" "$UA" && GROUP_OK=1

# --- jobs run as their submitter ------------------------------------------
for u in "$UA" "$UB"; do
    id=$(as "$u" sbatch --parsable -p dev -o id.out \
        --wrap 'id -u; id -g; touch made-by-job' 2>&1)
    like "$id" '^[0-9]+$' "$u submits through the unix socket"
    wait_for 15 job_ended "$id"
    is "$(squeue -h -t all -j "$id" -o '%T %u %U' 2>&1)" \
        "COMPLETED $u $(id -u "$u")" "the controller records $u as the job's owner"
    is "$(tr '\n' ' ' <"$WORK/$u/id.out" 2>&1)" "$(id -u "$u") $(id -g "$u") " \
        "$u's job runs as $u (id -u and id -g in its output)"
    is "$(stat -c %U "$WORK/$u/id.out" "$WORK/$u/made-by-job" 2>&1 | sort -u)" \
        "$u" "$u's output file and the files the job made belong to $u"
done

# --- supplementary groups (resolved by sluiced, set with setgroups) -------
if [ -n "$GROUP_OK" ]; then
    id=$(as "$UA" sbatch --parsable -p dev -o groups.out --wrap 'id -G' 2>&1)
    wait_for 15 job_ended "$id"
    is "$(tr ' ' '\n' <"$WORK/$UA/groups.out" | sort -n | tr '\n' ' ')" \
        "$(id -G "$UA" | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
        "$UA's job has $UA's supplementary groups ($GA among them)"
    like "$(id -G "$UA")" " $(getent group "$GA" | cut -d: -f3)\$" \
        "$GA is one of $UA's groups (the check above is not vacuous)"
else
    not_ok "groupadd $GA / usermod -aG $GA $UA"
fi

# --- A cannot touch B's jobs ------------------------------------------------
# B: one held job, one waiting for its begin time, one running.
cat >"$WORK/$UB/run.sh" <<'EOF'
#!/bin/sh
touch running
while [ ! -e stop ]; do sleep 0.05; done
EOF
chown "$UB" "$WORK/$UB/run.sh"
held=$(as "$UB" sbatch --parsable -H -p dev -J b-held -t 30 --wrap true)
later=$(as "$UB" sbatch --parsable -p dev -J b-later -t 30 --begin now+1hour --wrap true)
running=$(as "$UB" sbatch --parsable -p prod -J b-running -o run.out run.sh)
wait_for 15 test -e "$WORK/$UB/running"
snapshot() {
    squeue -h -t all -j "$held,$later,$running" -o '%i %j %T %r %l %P' | sort
}
before=$(snapshot)
is "$(echo "$before" | awk '{print $3}' | tr '\n' ' ')" "PENDING PENDING RUNNING " \
    "B has a held, a waiting and a running job"

# denied CMD ARGS... / NAME: run as A, which must fail saying so.
denied() {
    local name=$1 out rc
    shift
    out=$(as "$UA" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -q 'Access/permission denied'; then
        ok "A cannot $name (exit $rc)"
    else
        not_ok "A cannot $name"
        echo "#   exit $rc: $out"
    fi
}
denied "cancel B's pending job" scancel "$held"
denied "cancel B's running job" scancel "$running"
denied "signal B's running job" scancel -s USR1 "$running"
denied "cancel B's jobs by user name" scancel -u "$UB"
denied "hold B's pending job" scontrol hold "$later"
denied "release B's held job" scontrol release "$held"
denied "update B's time limit" scontrol update JobId="$later" TimeLimit=10
denied "rename B's job" scontrol update JobId="$later" JobName=mine
denied "move B's job to another partition" scontrol update JobId="$later" Partition=prod
denied "drain a node" scontrol update NodeName=node04 State=DRAIN Reason=mine
denied "change the controller's log level" scontrol setdebug debug
is "$(snapshot)" "$before" "B's jobs are untouched: states, reasons, names, limits, partitions"
is "$(sinfo -h -n node04 -o %t)" "idle" "node04 is not drained"
msg=$(as "$UA" scancel "$held" 2>&1)
is "$msg" "scancel: error: Kill job error on job id $held: Access/permission denied" \
    "scancel says which job was refused, in Slurm's words"
msg=$(as "$UA" sbatch --parsable -H -p dev -J a-held --wrap true)
is "$(as "$UA" scancel "$msg" "$held" 2>&1; echo "exit $?")" \
    "scancel: error: Kill job error on job id $held: Access/permission denied
exit 1" "A's own job in the same scancel is cancelled; B's is refused"
wait_for 10 job_ended "$msg"
is "$(job_state "$msg")" CANCELLED "A may cancel A's job"
is "$(as "$UA" squeue -h -u "$UB" -o %i | sort -n | tr '\n' ' ')" \
    "$(printf '%s\n' "$held" "$later" "$running" | sort -n | tr '\n' ' ')" \
    "A can still see B's jobs in squeue"

# --- root can ----------------------------------------------------------------
scontrol hold "$later"
is "$(squeue -h -j "$later" -o '%T %r')" "PENDING JobHeldAdmin" "root holds B's job"
denied_b=$(as "$UB" scontrol release "$later" 2>&1)
like "$denied_b" 'Access/permission denied' "B cannot release what an administrator held"
scontrol release "$later"
is "$(squeue -h -j "$later" -o '%T %r')" "PENDING BeginTime" "root releases it"
scontrol update JobId="$later" TimeLimit=7 JobName=renamed-by-root
is "$(squeue -h -j "$later" -o '%j %l')" "renamed-by-root 7:00" "root updates B's job"
scancel "$held" "$running"
wait_for 10 job_ended "$held"
wait_for 15 job_ended "$running"
is "$(job_state "$held") $(job_state "$running")" "CANCELLED CANCELLED" \
    "root cancels B's pending and running jobs"
as "$UB" scancel "$later"
wait_for 10 job_ended "$later"
is "$(job_state "$later")" CANCELLED "B may cancel B's own job"
finish
