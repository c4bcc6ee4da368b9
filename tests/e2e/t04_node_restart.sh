#!/usr/bin/env bash
# Node daemons restarted while their jobs run (SIGTERM, and kill -9): the
# jobs keep running and their ends are recorded with their exit codes, also
# an end that happens while the daemon is away; restarted while a queue
# drains, no job is lost or run twice.  A node daemon gone for good: its
# node goes DOWN "Not responding" within SlurmdTimeout, its job ends
# NODE_FAIL (--no-requeue; docs/protocol.md), and when the daemon comes
# back the node is idle again and the job's leftover processes are killed.
. "$(dirname "$0")/lib.sh"

TIMEOUT=8 # SlurmdTimeout in conf/timeout.conf
cluster_start "$E2E_ROOT/tests/e2e/conf/timeout.conf"

# A job that records its pid, waits for a file ($1) and exits $2.
cat >wait.sh <<'EOF'
#!/bin/sh
echo $$ >"pid-$SLURM_JOB_ID"
while [ ! -e "$1" ]; do sleep 0.1; done
echo "job $SLURM_JOB_ID on $SLURMD_NODENAME exits $2"
exit "$2"
EOF
running() { test "$(job_state "$1")" = RUNNING && test -s "pid-$1"; }
node_pid() { cat "$DIR/pids/$1.pid"; }
node_state() { sinfo -h -N -n "$1" -o %t; }

# ended ID STATE EXIT NODE: the job ended in STATE with ExitCode EXIT:0
# and its output says so.
ended() {
    local show
    wait_for 30 job_ended "$1"
    show=$(scontrol show job "$1")
    like "$show" "JobState=$2 " "job $1 is recorded $2"
    like "$show" "ExitCode=$3:0" "job $1 is recorded with ExitCode=$3:0"
    is "$(cat "slurm-$1.out" 2>&1)" "job $1 on $4 exits $3" \
        "job $1's output is complete"
}

for how in TERM KILL; do
    # One job ends after its node daemon is back, one while it is away.
    case $how in
    TERM) node=node02 after=5 during=0 ;;
    KILL) node=node03 after=6 during=7 ;;
    esac
    a=$(submit -w "$node" wait.sh "go-$how-a" "$after")
    b=$(submit -w "$node" wait.sh "go-$how-b" "$during")
    wait_for 30 running "$a" && wait_for 30 running "$b"
    pid=$(node_pid "$node")
    kill "-$how" "$pid"
    wait_for 10 eval "! alive $pid"
    touch "go-$how-b"
    if wait_for 10 compgen -G "$DIR/spool/$node/job.$b/status"; then
        ok "job $b ends while $node's sluiced is away (kill -$how): its end waits in the spool"
    else
        not_ok "job $b ends while $node's sluiced is away (kill -$how): its end waits in the spool"
    fi
    if alive "$(cat "pid-$a")"; then
        ok "job $a keeps running without its sluiced (kill -$how)"
    else
        not_ok "job $a keeps running without its sluiced (kill -$how)"
    fi
    sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-$how.err"
    new=$(node_pid "$node")
    if [ "$new" != "$pid" ] && alive "$new"; then
        ok "sluice up starts $node's sluiced again"
    else
        not_ok "sluice up starts $node's sluiced again"
        sed 's/^/#   /' "$DIR/up-$how.err"
    fi
    ended "$b" "$([ "$during" -eq 0 ] && echo COMPLETED || echo FAILED)" \
        "$during" "$node"
    is "$(job_state "$a")" RUNNING "job $a is still RUNNING after $node's restart"
    touch "go-$how-a"
    ended "$a" FAILED "$after" "$node"
done

# --- node daemons restarted while a queue drains -----------------------------
# A launch in flight when its sluiced stops is lost with the connection;
# that job must wait again (not fail NODE_FAIL, not run twice).
cat >short.sh <<'EOF'
#!/bin/sh
echo "$SLURM_JOB_ID" >>ran.txt
sleep 0.2
exit $(($1 % 3))
EOF
seq 1 200 | ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 xargs -P 8 -I{} \
    sbatch -H --parsable -J short-{} -o /dev/null short.sh {} >short.ids
scontrol release $(cat short.ids)
k=0
for n in node01 node02 node03 node01 node02 node03; do
    [ -n "$(squeue -h -t PD -o %i)" ] || break
    k=$((k + 1))
    pid=$(node_pid "$n")
    kill "-$([ $((k % 2)) -eq 0 ] && echo KILL || echo TERM)" "$pid"
    wait_for 10 eval "! alive $pid"
    if ! sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-drain.err"; then
        not_ok "sluice up after restart $k"
        sed 's/^/#   /' "$DIR/up-drain.err"
    fi
    sleep 0.5
done
wait_for 60 eval '[ -z "$(squeue -h -o %i)" ]'
echo "# $k node daemon restarts while draining;" \
    "$(grep -c 'launch unconfirmed' "$DIR/log/sluicectld.log") lost launches requeued"
is "$(sort ran.txt | uniq -d | head -3 | tr '\n' ' ')" "" "no job ran twice"
is "$(sort -n ran.txt | tr '\n' ' ')" "$(sort -n short.ids | tr '\n' ' ')" \
    "all 200 jobs ran"
bad=$(scontrol -o show job | grep ' JobName=short-' |
    grep -oE 'JobName=short-[0-9]+|JobState=[A-Z_]+|ExitCode=[0-9:]+' |
    paste - - - | awk '{ split($1, n, "-"); c = n[2] % 3
        want = (c == 0 ? "JobState=COMPLETED" : "JobState=FAILED") " ExitCode=" c ":0"
        if ($2 " " $3 != want) print }' | head -3)
is "$bad" "" "each ended with its exit code"

# --- a node daemon gone for good ----------------------------------------------
d=$(submit -w node04 --no-requeue wait.sh go-d 0)
wait_for 30 running "$d"
jobpid=$(cat "pid-$d")
pid=$(node_pid node04)
t0=$(date +%s)
kill -9 "$pid"
down() { case $(node_state node04) in down*) return 0 ;; esac; return 1; }
if wait_for $((TIMEOUT + 10)) down; then
    # When the controller marked it: the reason's timestamp (whole
    # seconds), not when this loaded machine got around to looking.
    when=$(date -d "$(sinfo -R -h -n node04 -o %H)" +%s 2>/dev/null || echo 0)
    took=$((when - t0))
    echo "# node04 DOWN $took s after its sluiced was killed" \
        "(SlurmdTimeout=$TIMEOUT; seen after $(($(date +%s) - t0)) s)"
    # Its last heartbeat came up to SlurmdTimeout/3 before the kill and the
    # controller checks once a second: DOWN comes between SlurmdTimeout -
    # SlurmdTimeout/3 and SlurmdTimeout + 1 s (+1 s for whole seconds).
    if [ "$took" -ge $((TIMEOUT - TIMEOUT / 3 - 1)) ] &&
        [ "$took" -le $((TIMEOUT + 2)) ]; then
        ok "node04 goes DOWN within SlurmdTimeout ($took s)"
    else
        not_ok "node04 goes DOWN within SlurmdTimeout ($took s, SlurmdTimeout=$TIMEOUT)"
    fi
else
    not_ok "node04 goes DOWN after its sluiced was killed"
fi
is "$(node_state node04)" "down*" "sinfo shows node04 down* (not responding)"
like "$(sinfo -R -h)" '^Not responding +[^ ]+ +[0-9T:-]+ +node04$' \
    "sinfo -R: node04 Not responding"
show=$(scontrol show node node04)
like "$show" "State=DOWN" "scontrol show node: State=DOWN"
like "$show" "Reason=Not responding" "scontrol show node: Reason=Not responding"
wait_for 10 job_ended "$d"
is "$(job_state "$d")" NODE_FAIL "its running job ends NODE_FAIL"
like "$(squeue -h -t all -j "$d" -o '%T %r %N')" "^NODE_FAIL NodeDown node04$" \
    "squeue: NODE_FAIL, reason NodeDown, on node04"
n=$(submit --wrap 'echo $SLURMD_NODENAME' -o where.out)
wait_for 30 job_ended "$n"
like "$(cat where.out 2>&1)" '^node0[1-3]$' "a new job runs on a node that is up"

# Back again: the node registers, is usable, and the leftover job is killed.
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-d.err"
is "$(node_state node04)" idle "node04 is idle again once its sluiced is back"
if wait_for 15 eval "! alive $jobpid"; then
    ok "the NODE_FAIL job's processes are killed when node04 registers"
else
    not_ok "the NODE_FAIL job's processes are killed when node04 registers"
fi
is "$(job_state "$d")" NODE_FAIL "the job stays NODE_FAIL"
n=$(submit -w node04 --wrap 'echo $SLURMD_NODENAME' -o back.out)
wait_for 30 job_ended "$n"
is "$(job_state "$n") $(cat back.out 2>&1)" "COMPLETED node04" "node04 runs jobs again"
cluster_gone
finish
