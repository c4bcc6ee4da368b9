#!/usr/bin/env bash
# The simulator's fidelity check: a small workload runs on a real local
# cluster (tests/e2e/conf/simulate.conf: jobs that queue, one that
# backfills, one that cannot; a dev job preempted by a prod job and
# requeued), then its accounting history is replayed by sluice simulate
# on the same configuration, from `sacct --json=sluice` in a file and
# from --from-accounting.  Every start of every job (a requeued job
# starts twice) comes out in the same order and within one second, the
# scheduler's granularity (times are whole seconds; docs/simulate.md
# says where the second comes from).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "$PY is needed to compare"
cluster_start "$E2E_ROOT/tests/e2e/conf/simulate.conf"

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }

# --- the workload ---------------------------------------------------------------
# backtest (4 CPUs): a1 holds 2 CPUs (limit 2 min); a2 wants all 4 and
# waits for it; a3 (limit 1 min) backfills into the 2 free CPUs; a4
# (limit 5 min) would delay a2, so it waits for a2.
a1=$(submit -p backtest -J a1 -n 2 -t 2 --wrap 'sleep 6')
a2=$(submit -p backtest -J a2 -n 4 -t 2 --wrap 'sleep 2')
a3=$(submit -p backtest -J a3 -n 2 -t 1 --wrap 'sleep 2')
a4=$(submit -p backtest -J a4 -n 1 -t 5 --wrap 'sleep 1')
# node01: d1 takes its 4 GPUs; once d1 is past its 2 s of exemption, p1
# (prod) needs 2 of them: d1 is preempted, requeued, and runs again
# whole after p1.
d1=$(submit -p dev -J d1 --gpus-per-node=4 -t 1 --wrap 'sleep 8')
wait_for 15 is_state "$d1" RUNNING
sleep 3
p1=$(submit -p prod -J p1 --gpus-per-node=2 --wrap 'sleep 2')
all="$a1 $a2 $a3 $a4 $d1 $p1"
for j in $all; do
    wait_for 40 is_state "$j" COMPLETED
done
is "$(for j in $all; do state_of "$j"; done | sort -u | tr '\n' ' ')" \
    "COMPLETED " "the workload ran to completion"
like "$(sacct -n -X -j "$d1" -o Restarts -P)" '^1$' "d1 was preempted and requeued once"

sacct --json=sluice >hist.json
is "$?" 0 "sacct --json=sluice wrote the history"

# --- the replays -----------------------------------------------------------------
sluice simulate -w hist.json -c "$SLUICE_CONF" --json --jobs >file.json 2>err
is "$?" 0 "sluice simulate replays the history file on the cluster's configuration"
sluice simulate --from-accounting --json --jobs >acct.json 2>err2
is "$?" 0 "sluice simulate --from-accounting replays it through the controller"
[ -s err2 ] && sed 's/^/#   /' err2

# compare.py HIST SIM: every start of every job, recorded (the history's
# start events) and simulated; prints the differences, then a verdict.
cat >compare.py <<'EOF'
import json, sys

hist = json.load(open(sys.argv[1]))["jobs"]
sim = json.load(open(sys.argv[2]))
rec = []
for j in hist:
    runs = [e["time"] for e in j["events"] if e["event"] == "start"]
    rec += [(t, j["job_id"], k) for k, t in enumerate(runs)]
seen = {}
got = []
for s in sim["starts"]:
    k = seen.get(s["job_id"], 0)
    seen[s["job_id"]] = k + 1
    got.append((s["start"], s["job_id"], k))
rec.sort()
when = {(j, k): t for t, j, k in got}
bad = []
if sorted((j, k) for _, j, k in rec) != sorted((j, k) for _, j, k in got):
    bad.append("starts differ: recorded %s, simulated %s"
               % (sorted((j, k) for _, j, k in rec), sorted((j, k) for _, j, k in got)))
for t, j, k in rec:
    d = when.get((j, k), t + 99) - t
    print("# job %d run %d: recorded %d, simulated %+d s" % (j, k, t, d))
    if abs(d) > 1:
        bad.append("job %d run %d %+d s" % (j, k, d))
# the order: a pair the simulation swaps must have started within a
# second of each other for real
pos = {(j, k): i for i, (_, j, k) in enumerate(sorted(got))}
for a in range(len(rec)):
    for b in range(a + 1, len(rec)):
        ta, ja, ka = rec[a]
        tb, jb, kb = rec[b]
        if pos.get((ja, ka), 0) > pos.get((jb, kb), 0) and tb - ta > 1:
            bad.append("order: job %d run %d before job %d run %d" % (ja, ka, jb, kb))
print("; ".join(bad) if bad else "same")
EOF
out=$("$PY" compare.py hist.json file.json)
printf '%s\n' "$out" | grep '^#'
is "$(printf '%s\n' "$out" | tail -1)" same \
    "from the file: every start in the recorded order, each within 1 s"
out=$("$PY" compare.py hist.json acct.json)
is "$(printf '%s\n' "$out" | tail -1)" same \
    "from --from-accounting: the same"
summary=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
parts = {p["name"]: p for p in d["partitions"]}
f = d["fidelity"]
print(d["all"]["jobs"], d["all"]["started"], parts["dev"]["preemptions"],
      f["jobs"], f["order_inversions"], f["abs_diff_s"]["max"] <= 1)' file.json)
is "$summary" "6 6 1 6 0 True" \
    "the report: 6 jobs started, dev's preemption, first starts within 1 s, none swapped"
out=$(sluice simulate -w hist.json -c "$SLUICE_CONF")
like "$out" 'against the starts the trace recorded: 6 jobs' \
    "the text report compares with the recorded starts"

cluster_gone
finish
