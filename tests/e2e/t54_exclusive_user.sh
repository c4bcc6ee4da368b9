#!/usr/bin/env bash
# ExclusiveUser=YES: a job of such a partition keeps its node to its user
# while it runs (another user's job waits, even from an ordinary partition
# on the same node), the same user's jobs share it, and the node is open
# to everyone again when the user's jobs end.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "creating a user needs root"
command -v useradd >/dev/null && command -v runuser >/dev/null ||
    skip_all "useradd or runuser is not installed"

U=sluicex$$
USER_MADE=
stop_all() {
    cluster_stop
    [ -n "$USER_MADE" ] && userdel "$U" 2>/dev/null
}

cluster_start "$E2E_ROOT/tests/e2e/conf/excl.conf"
trap stop_all EXIT
if ! useradd -M -d /nonexistent -s /bin/sh "$U"; then
    not_ok "useradd $U"
    finish
    exit
fi
USER_MADE=1
chmod 755 "$DIR" "$WORK"
mkdir -p "$WORK/$U"
chown "$U" "$WORK/$U"
as() {
    (cd "$WORK/$U" && runuser -u "$U" -- env SLUICE_CONF="$SLUICE_CONF" \
        "$E2E_BIN/$@")
}
state_node() { squeue -h -t all -j "$1" -o '%T %N'; }
running() { [ "$(job_state "$1")" = RUNNING ]; }

r1=$(sbatch --parsable -p excl -w node01 -c 1 --wrap 'sleep 60')
wait_for 10 running "$r1"
is "$(state_node "$r1")" "RUNNING node01" "root's ExclusiveUser job runs on node01"
u1=$(as sbatch --parsable -p shared -w node01 -c 1 --wrap 'sleep 1')
r2=$(sbatch --parsable -p excl -w node01 -c 1 --wrap 'sleep 60')
wait_for 10 running "$r2"
is "$(state_node "$r2")" "RUNNING node01" "root's second job shares node01 with the first"
is "$(squeue -h -j "$u1" -o '%T %r')" "PENDING Resources" \
    "another user's job waits for node01, although it has 6 free CPUs"
u2=$(as sbatch --parsable -p excl -c 1 --wrap 'sleep 1')
wait_for 10 job_ended "$u2"
is "$(squeue -h -t all -j "$u2" -o '%T %N')" "COMPLETED node02" \
    "that user's ExclusiveUser job runs on the other node"
is "$(squeue -h -j "$u1" -o '%T')" PENDING "the job pinned to node01 still waits"
scancel "$r1" "$r2"
wait_for 15 job_ended "$u1"
is "$(squeue -h -t all -j "$u1" -o '%T %N')" "COMPLETED node01" \
    "when root's jobs end, node01 takes the other user's job"
finish
