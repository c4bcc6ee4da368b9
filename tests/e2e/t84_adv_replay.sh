#!/usr/bin/env bash
# Credentials are bound to their receiver and cannot be replayed across a
# restart (audit finding 11).  A root-signed SUBMIT captured before the
# controller restarts (never sent, so no replay cache has seen it) is
# refused after the restart; a frame signed for a node is refused by the
# controller; the nodes themselves register again and run jobs; the replay
# floor is kept in StateSaveLocation/auth_floor, mode 0600.
. "$(dirname "$0")/lib.sh"
FRAMETOOL=$E2E_ROOT/$E2E_BUILD/tests/frametool
[ -x "$FRAMETOOL" ] || skip_all "$FRAMETOOL is not built"
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
STATE=$(sed -n 's/^StateSaveLocation=//p' "$SLUICE_CONF")

is "$(stat -c %a "$STATE/auth_floor" 2>&1)" 600 \
    "the replay floor is recorded, mode 0600"
like "$("$FRAMETOOL" to-node node01 2>&1)" \
    "^refused EACCES: .*meant for another receiver than sluicectld" \
    "a frame signed for node01 is refused by the controller"
like "$("$FRAMETOOL" submit 2>&1)" "^accepted job [0-9]+$" \
    "a frame signed for the controller is accepted"

# Captured now, replayed after a restart.
"$FRAMETOOL" save "$DIR/captured.frame"
sleep 1.2
pid=$(cat "$DIR/pids/sluicectld.pid")
kill "$pid"
wait_for 10 eval "! kill -0 $pid 2>/dev/null"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err" ||
    sed 's/^/#   /' "$DIR/up2.err"
wait_for 10 squeue -h
like "$("$FRAMETOOL" send "$DIR/captured.frame" 2>&1)" \
    "^refused EACCES: .*credential issued [0-9]+ s before this daemon started" \
    "a frame captured before the restart is refused after it"
is "$(squeue -h -t all -n frametool-saved -o %i | wc -l)" 0 \
    "and made no job"

# The real nodes sign afresh and come back.
j=$(sbatch --parsable -p prod -t 1 --wrap true)
wait_for 20 job_ended "$j"
is "$(job_state "$j")" COMPLETED "a node runs a job after the restart"
finish
