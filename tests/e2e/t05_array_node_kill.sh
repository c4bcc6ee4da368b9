#!/usr/bin/env bash
# sluiced killed (kill -9) while a 2,000-task array of trivial jobs drains
# over two nodes, then started again: every task ran once and ended once
# (issue 19's crash guarantee for the lean launch path).  Each task appends
# its index to one file; the file has each index once, sacct has one final
# record per task, all COMPLETED, and both spools are empty once the ends
# were acknowledged (no end lost, none left behind).
. "$(dirname "$0")/lib.sh"

N=2000
cluster_start "$E2E_ROOT/tests/e2e/conf/array2.conf"
node_pid() { cat "$DIR/pids/$1.pid"; }
ran() { [ -f ran ] && wc -l <ran || echo 0; }
at_least() { [ "$(ran)" -ge "$1" ]; }
drained() { [ -z "$(squeue -h -t PD,R,CG -j "$1" -o %i 2>/dev/null)" ]; }

a=$(submit --array=0-$((N - 1)) -o /dev/null \
    --wrap "echo \$SLURM_ARRAY_TASK_ID >>$WORK/ran")
like "$a" '^[0-9]+$' "a $N-task array is accepted"

# kill node01's sluiced once a few hundred tasks ran: some of its tasks
# are running, some launching, some ended and not yet acknowledged
wait_for 60 at_least 300
pid=$(node_pid node01)
kill -9 "$pid"
hang=
if ! wait_for 10 eval "! alive $pid"; then
    # where the killed process hangs, should sluice up take it as running
    hang="node01's sluiced (pid $pid) is still there 10 s after kill -9:
$(grep -E '^(State|SigPnd|ShdPnd)' "/proc/$pid/status" 2>&1)
wchan: $(cat "/proc/$pid/wchan" 2>&1)
$(cat "/proc/$pid/stack" 2>&1)"
fi
done_at_kill=$(ran)
if [ "$done_at_kill" -lt "$N" ]; then
    ok "node01's sluiced is killed mid-array ($done_at_kill of $N tasks ran)"
else
    not_ok "node01's sluiced is killed mid-array (all $N had run already)"
fi
sleep 1
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-again.err"
new=$(node_pid node01)
if [ "$new" != "$pid" ] && alive "$new"; then
    ok "sluice up starts node01's sluiced again"
else
    not_ok "sluice up starts node01's sluiced again"
    sed 's/^/#   /' "$DIR/up-again.err"
    [ -z "$hang" ] || printf '%s\n' "$hang" | sed 's/^/#   /'
fi

if wait_for 120 drained "$a"; then
    ok "the array drains"
else
    not_ok "the array drains ($(squeue -h -t PD,R,CG -j "$a" | wc -l) left)"
fi
is "$(sort -n ran | uniq -d | head -5 | tr '\n' ' ')" "" \
    "no task ran twice"
is "$(sort -nu ran | wc -l)" "$N" "every task ran"
is "$(sort -nu ran | sed -n '1p;$p' | tr '\n' ' ')" "0 $((N - 1)) " \
    "the indexes are the array's"

acct=$(sacct -X -n -P -j "$a" -o JobID,State)
is "$(printf '%s\n' "$acct" | cut -d'|' -f1 | sort | uniq -d | head -5 |
    tr '\n' ' ')" "" "sacct: no task has two final records"
is "$(printf '%s\n' "$acct" | cut -d'|' -f1 | sort -u | wc -l)" "$N" \
    "sacct: one final record for each task"
is "$(printf '%s\n' "$acct" | cut -d'|' -f2 | sort | uniq -c |
    awk '{ print $2 ":" $1 }' | tr '\n' ' ')" "COMPLETED:$N " \
    "sacct: every task COMPLETED"
spooled() { ls "$DIR"/spool/node0[12] | grep -c '^job\.'; }
none_spooled() { [ "$(spooled)" -eq 0 ]; }
wait_for 10 none_spooled
is "$(spooled)" 0 "both spools are empty: every end was acknowledged"
# the restarted sluiced found jobs of the killed one in its spool
like "$(grep -c "adopted state=" "$DIR/log/node01.log")" "^[1-9]" \
    "node01's restarted sluiced adopted the tasks it found"
finish
