#!/usr/bin/env bash
# Secrets at rest (audit findings 1, 9, 16, 20): another user on the
# controller host cannot read the state database, its WAL, the logs or the
# spool; a finished job's script and environment leave the database while
# sacct keeps showing the job; a job's output files get the submitter's
# umask, not 0644.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup
STATE=$(sed -n 's/^StateSaveLocation=//p' "$SLUICE_CONF")
SPOOL=$DIR/spool
SECRET=hunter2-victim-$$

# as_sh USER SCRIPT: a shell script run as USER, its output and stderr.
as_sh() {
    (cd / && runuser -u "$1" -- sh -c "$2" 2>&1)
}

# --- finding 1: the WAL secret read ------------------------------------------
# root submits a held job (its payload stays) with a secret in its
# environment; it is in the files, root can see it, the attacker cannot.
held=$(AWS_SECRET_ACCESS_KEY=$SECRET sbatch --parsable -H -p dev -D "$WORK" \
    --wrap true)
like "$held" '^[0-9]+$' "root submits a held job with a secret variable"
wait_for 5 sh -c "grep -a -q -- '$SECRET' '$STATE'/sluice.db*"
ok_files=$(grep -a -l -- "$SECRET" "$STATE"/sluice.db* | wc -l)
[ "$ok_files" -ge 1 ] && ok "the secret is in the database files (root sees it)" ||
    not_ok "the secret is in the database files (root sees it)"
out=$(as_sh "$MAL" "grep -a -o 'AWS_SECRET_ACCESS_KEY[^,]*' $STATE/sluice.db*; \
    cat $STATE/sluice.db $STATE/sluice.db-wal $STATE/sluice.db-shm >/dev/null; \
    ls $STATE")
if printf '%s\n' "$out" | grep -q -- "$SECRET"; then
    not_ok "the attacker cannot read the secret from sluice.db*"
    printf '#   %s\n' "$out" | head -5
else
    ok "the attacker cannot read the secret from sluice.db*"
fi
like "$out" "sluice.db-wal: Permission denied" \
    "reading sluice.db-wal as another user: Permission denied"
like "$out" "sluice.db: Permission denied" \
    "reading sluice.db as another user: Permission denied"
like "$out" "ls: cannot open directory '?$STATE'?: Permission denied" \
    "listing StateSaveLocation as another user: Permission denied"
# a copy is no way round it either
out=$(as_sh "$MAL" "cp $STATE/sluice.db $STATE/sluice.db-wal $WORK/$MAL/ 2>&1")
like "$out" "Permission denied" "the attacker cannot copy the database"
is "$(stat -c %a "$STATE"/sluice.db "$STATE"/sluice.db-wal \
    "$STATE"/sluice.db-shm | sort -u)" 600 "sluice.db, -wal and -shm are 0600"
is "$(stat -c %a "$STATE")" 711 "StateSaveLocation is 0711"

# the socket stays reachable: the attacker's own sbatch works
id=$(as_user "$MAL" sbatch --parsable -H -p dev -t 1 --wrap true 2>&1)
like "$id" '^[0-9]+$' "users still reach the controller's socket in it"

# logs and the spool: the logs name users and paths, the spool holds
# scripts; a running job's spool directory is reached by name only
out=$(as_sh "$MAL" "cat $DIR/log/sluicectld.log $DIR/log/node04.log; \
    ls $SPOOL/node04")
like "$out" "sluicectld.log: Permission denied" "the attacker cannot read the logs"
run=$(AWS_SECRET_ACCESS_KEY=$SECRET sbatch --parsable -p dev \
    -D "$WORK" --wrap 'sleep 30')
wait_for 10 test -e "$SPOOL/node04/job.$run/script"
out=$(as_sh "$MAL" "ls $SPOOL/node04/job.$run; cat $SPOOL/node04/job.$run/script \
    $SPOOL/node04/job.$run/supervisor.pid")
if printf '%s\n' "$out" | grep -q -- "$SECRET\|sleep 30"; then
    not_ok "the attacker cannot read another user's job spool"
else
    ok "the attacker cannot read another user's job spool"
fi
like "$out" "supervisor.pid: Permission denied" \
    "supervisor.pid is not readable by others"
# the environment stays with the supervisor: no launch.json for a job
is "$(find "$SPOOL/node04/job.$run" -name 'launch.json*' | wc -l)" 0 \
    "the job's environment is not written to the spool"
is "$(stat -c %a "$SPOOL/node04/job.$run")" 711 "a job's spool directory is 0711"
is "$(stat -c '%a %U' "$SPOOL/node04/job.$run/script")" "700 root" \
    "the script is 0700 and the job user's"
scancel "$run"

# --- finding 9: the payload leaves the database when the job ends -----------
done_id=$(AWS_SECRET_ACCESS_KEY=$SECRET sbatch --parsable -p dev -D "$WORK" \
    --wrap 'echo done')
wait_for 15 job_ended "$done_id"
is "$(job_state "$done_id")" COMPLETED "a job with a secret ran"
is "$(sqlite3 "$STATE/sluice.db" \
    "select length(payload) from jobs where id = $done_id")" 0 \
    "its payload (script, environment) is gone from sluice.db"
is "$(sqlite3 "$STATE/sluice.db" \
    "select count(*) from jobs where id = $held and payload like '%$SECRET%'")" \
    1 "a held job keeps its payload"
is "$(sacct -n -X -j "$done_id" -o JobID,State | tr -s ' ' | sed 's/^ //;s/ $//')" \
    "$done_id COMPLETED" "sacct still shows the ended job"

# --- finding 16: output files get the submitter's umask ----------------------
declare -A want=([077]=600 [027]=640 [022]=644)
for m in 077 027 022; do
    jid=$(as_sh "$MAL" "cd $WORK/$MAL && umask $m && \
        SLUICE_CONF=$SLUICE_CONF $E2E_BIN/sbatch --parsable -p dev -t 1 \
        -o out$m-%j.txt -e err$m-%j.txt --wrap 'echo secret; echo x >&2; \
        touch made$m'")
    wait_for 15 job_ended "$jid"
    is "$(stat -c %a "$WORK/$MAL/out$m-$jid.txt" "$WORK/$MAL/err$m-$jid.txt" \
        "$WORK/$MAL/made$m" 2>&1 | sort -u)" "${want[$m]}" \
        "umask $m at submit: output, error and the job's own files are ${want[$m]}"
done

still_serving "after reading the state files as another user"
finish
