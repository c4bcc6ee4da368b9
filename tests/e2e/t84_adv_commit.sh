#!/usr/bin/env bash
# A failed COMMIT never leaves memory and database apart (audit finding
# 12): when StateSaveLocation fills between the controller's check and
# its commit (here the check is off, SluiceStateMinFree=0, so that a full
# file system reaches the commit; t38 shows the check refusing instead),
# the controller stops with a fatal line instead of answering, nothing it
# could not save is reported or launched, and after space is freed a
# restart has every job it had accepted and hands out no id twice.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to mount a small filesystem"
need_daemons

DIR=$(mktemp -d /tmp/sluice-e2e.XXXXXX)
cleanup() {
    if [ -n "$DIR" ]; then
        sluice down --cancel --dir "$DIR" >/dev/null 2>&1
        cluster_kill_left
        umount "$DIR/state" 2>/dev/null
    fi
    cluster_stop
}
trap cleanup EXIT
mkdir -p "$DIR/state" "$DIR/san"
mount -t tmpfs -o size=8m,mode=0700 tmpfs "$DIR/state" ||
    skip_all "cannot mount a tmpfs here"
{ cat "$E2E_ROOT/etc/quant-cluster.conf" && echo SluiceStateMinFree=0; } \
    >"$DIR/nocheck.conf"
if ! out=$(sluice up -f "$DIR/nocheck.conf" --dir "$DIR" 2>"$DIR/up.err"); then
    not_ok "sluice up"
    sed 's/^/#   /' "$DIR/up.err"
    exit 1
fi
eval "$out"
export SLUICE_CONF
WORK=$DIR/work
mkdir -p "$WORK" && cd "$WORK" || exit 1

held=$(sbatch --parsable -H -p dev -t 5 --wrap true)
run=$(sbatch --parsable -p dev -t 5 --wrap 'sleep 40')
wait_for 10 sh -c "squeue -h -j $run -o %T | grep -q RUNNING"
is "$(job_state "$run")" RUNNING "a job runs before the disk fills"
pid=$(cat "$DIR/pids/sluicectld.pid")

dd if=/dev/zero of="$DIR/state/fill" bs=64k 2>/dev/null
out=$(timeout 10 sbatch --parsable -p dev -t 5 --wrap 'sleep 30' 2>&1)
if [[ "$out" =~ ^[0-9]+$ ]]; then
    not_ok "sbatch on a full disk reports no job id"
    echo "#   got job $out"
else
    ok "sbatch on a full disk reports no job id"
fi
wait_for 10 eval '! kill -0 '"$pid"' 2>/dev/null'
ok_dead=$(kill -0 "$pid" 2>/dev/null && echo alive || echo stopped)
is "$ok_dead" stopped "the controller stops rather than run apart from its database"
like "$(grep ' fatal: ' "$DIR/log/sluicectld.log")" "commit failed: .*(full|disk)" \
    "its fatal line names the cause"
# Nothing it could not save was launched: every job a node knows of is one
# it had reported.
spooled=$(cd "$DIR/spool" && ls -d node0*/job.* 2>/dev/null | sed 's/.*job\.//' |
    sort -u | tr '\n' ' ')
is "$spooled" "$run " "no node was sent a job that is not in the database"

rm -f "$DIR/state/fill"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err" ||
    sed 's/^/#   /' "$DIR/up2.err"
wait_for 15 squeue -h
is "$(job_state "$held")" PENDING "the held job is back after the restart"
is "$(job_state "$run")" RUNNING "the running job is back and still runs"
new=$(sbatch --parsable -H -p dev -t 5 --wrap true)
like "$new" '^[0-9]+$' "sbatch works again once space is free"
if [ "$new" -gt "$run" ] && [ "$new" -gt "$held" ]; then
    ok "the new job's id ($new) is not one already handed out"
else
    not_ok "the new job's id ($new) is not one already handed out"
fi
finish
