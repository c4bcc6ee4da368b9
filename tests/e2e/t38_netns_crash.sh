#!/usr/bin/env bash
# kill -9 of the controller and of node daemons at random moments while
# jobs are submitted (from the login host) and run, on the netns cluster;
# each daemon is started again after a random pause.  Every job whose id
# sbatch printed ends exactly once: it is COMPLETED, its records (runrec.sh)
# show one run that ended, accounting has one run of it, and no two runs
# of a job overlapped.  The seed of the crashes is printed (T38_SEED=N
# repeats them).
. "$(dirname "$0")/netns.sh"

NODES="node01 node02 node03"
netns_start "$NODES" <<'EOF'
ClusterName=netns
SlurmdTimeout=10
KillWait=2
NodeName=node[01-03] CPUs=2 RealMemory=2000
PartitionName=all Nodes=node[01-03] Default=YES MaxTime=INFINITE
EOF
netns_recorder
SEED=${T38_SEED:-$(((RANDOM << 15) | RANDOM))}
RANDOM=$SEED
echo "# seed $SEED"

# A submitter on the login host: one job every 0.1 s, each running 0.6 s
# (three records), until "stop-submit"; the ids it was given.
(
    k=0
    while [ ! -e stop-submit ]; do
        k=$((k + 1))
        if id=$(sbatch --parsable -J "j$k" -o /dev/null runrec.sh 0.6 2>/dev/null); then
            echo "$id"
        else
            echo "j$k" >>failed.txt
        fi
        sleep 0.1
    done
) >ids.txt 2>/dev/null &
submitter=$!
wait_for 20 test -s ids.txt

# Crashes: the controller or a node daemon, kill -9, back after 0-2 s.
hosts=(ctld $NODES)
crashes=
for i in $(seq 1 10); do
    sleep "0.$((RANDOM % 10))"
    h=${hosts[$((RANDOM % 4))]}
    pid=$(netns_daemon_pid "$h")
    [ -n "$pid" ] || continue
    kill -9 "$pid"
    wait_for 10 eval "! alive $pid"
    crashes="$crashes $h"
    sleep "$((RANDOM % 2)).$((RANDOM % 10))"
    if ! netns_daemon_start "$h"; then
        not_ok "$h's daemon starts again after crash $i"
        tail -5 "$DIR/log/$h.err" | sed 's/^/#   /'
    fi
done
echo "# crashed:$crashes"
touch stop-submit
wait "$submitter"
echo "# $(grep -c . ids.txt) jobs accepted"
wait_for 30 netns_registered
ok "every node is registered again"

all_done() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
if wait_for 120 all_done; then
    ok "every job ends"
else
    not_ok "every job ends ($(squeue -h -o '%i %T %r' | head -5 | tr '\n' ';'))"
fi
echo "# $(grep -c 'launch unconfirmed' "$DIR/log/sluicectld.log") lost launches requeued"

# A controller killed after committing a submission but before its reply
# went out leaves a job whose sbatch failed (the reply waits for the
# commit, so the window is commit to send): such a job is in accounting
# and runs, and its name is one of a failed sbatch's.  Any other job that
# sbatch did not print, or a printed id that is missing, is a violation.
touch failed.txt
known=$(sacct -n -X -P -o JobID,JobName 2>/dev/null | sort -n)
unprinted=$(echo "$known" | awk -F'|' 'NR == FNR { p[$1] = 1; next } !($1 in p)' \
    ids.txt - | cut -d'|' -f2 | sort)
echo "# $(grep -c . failed.txt) submissions failed, $(echo "$unprinted" | grep -c .) of them accepted before the crash"
is "$(echo "$unprinted" | grep -vxFf failed.txt | head -5)" "" \
    "every job in accounting was printed by sbatch or is one whose sbatch failed"
ids=$(echo "$known" | cut -d'|' -f1)
is "$(echo "$ids" | awk 'NR == FNR { k[$1] = 1; next } !($1 in k)' - ids.txt)" "" \
    "accounting knows every job whose id sbatch printed"
states=$(sacct -n -X -P -o JobID,State,Restarts 2>/dev/null | sort -n)
is "$(echo "$states" | grep -v '|COMPLETED|0$' | head -5)" "" \
    "each is COMPLETED, without a restart"
is "$(sacct -n -X -P -D -o JobID 2>/dev/null | sort -n | uniq -d | head -5)" "" \
    "each has one run in accounting (sacct -D)"
# the events: one start and one end each, no requeue of a run that started
is "$(sacct --json=sluice 2>/dev/null | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
if not jobs:
    print("no job in sacct --json")
for j in jobs:
    ev = [e["event"] for e in j["events"]]
    if ev.count("end") != 1 or ev.count("start") - ev.count("requeue") - ev.count("launch_lost") != 1:
        print(j["job_id"], " ".join(ev))' | head -5)" "" \
    "each has one end event, and one start that was not given up"
runs=$(netns_runs runs.txt)
is "$(echo "$runs" | awk '{print $1}' | sort -n | uniq -d | head -5)" "" \
    "each ran once (the jobs' own records)"
is "$(echo "$runs" | awk '$6 != 1 {print $1}' | head -5)" "" \
    "and each of those runs ended by itself"
is "$(echo "$runs" | awk '{print $1}' | sort -n)" "$ids" "every job in accounting ran"
is "$(netns_overlaps runs.txt)" "" "no two runs of a job overlapped"
netns_gone
finish
