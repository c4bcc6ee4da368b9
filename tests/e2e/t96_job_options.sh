#!/usr/bin/env bash
# The job options of issue 16 in the controller, end to end, with raw
# SUBMIT bodies (the JOBSPEC keys of docs/protocol.md): a constraint no
# node meets is refused as Slurm refuses it and one that some nodes meet
# runs there; --exclusive takes a whole node, which shows ALLOCATED and
# takes no other job; --tmp picks the nodes with TmpDisk; a pending job
# past its --deadline ends DEADLINE; the options come back in the JOB
# object, and NODE objects carry Features, TmpDisk, Weight and the shape.
. "$(dirname "$0")/lib.sh"

PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || skip_all "$PY is not installed"

cluster_start "$E2E_ROOT/tests/e2e/conf/jobopts.conf"
SOCK=$(sed -n 's/^StateSaveLocation=//p' "$SLUICE_CONF")/sluicectld.sock
export SOCK
cp "$E2E_ROOT/tests/e2e/sl.py" "$WORK/sl.py"

# py SCRIPT...: Python with sl.py's frame helpers (standard library only).
py() { PYTHONPATH="$WORK" "$PY" - "$@"; }

# sub JSON: SUBMIT {"job": JSON + a script}; prints the job id or the error.
sub() {
    py "$1" <<'PY'
import json, sys, sl
spec = json.loads(sys.argv[1])
spec.setdefault("script", "#!/bin/sh\nsleep 30\n")
r = sl.call(sl.SUBMIT, {"job": spec})
err = r.get("error")
print(r.get("job_id") or (err.get("message") if isinstance(err, dict) else err))
PY
}

# field ID KEY: the key of the job's JOB object, as JSON.
field() {
    py "$1" "$2" <<'PY'
import json, sys, sl
r = sl.call(sl.JOB_QUERY, {"job_ids": [int(sys.argv[1])]})
print(json.dumps(r["jobs"][0].get(sys.argv[2])))
PY
}

# node_field NODE KEY: the key of the node's NODE object, as JSON.
node_field() {
    py "$1" "$2" <<'PY'
import json, sys, sl
r = sl.call(20, {"nodes": [sys.argv[1]]})
print(json.dumps(r["nodes"][0].get(sys.argv[2])))
PY
}

running() { [ "$(job_state "$1")" = RUNNING ]; }
node_of() { squeue -h -t all -j "$1" -o %N; }

wait_for 20 sh -c 'sinfo -h -o %T | grep -qv -e unk -e down' ||
    not_ok "the nodes came up"

is "$(node_field node01 features)" '"a100,ib"' "node01 has its Features"
is "$(node_field node01 active_features)" '"a100,ib"' "... active too"
is "$(node_field node01 tmp_disk_mib)" 10000 "node01 has its TmpDisk"
is "$(node_field node01 weight)" 5 "node01 has its Weight"
is "$(node_field node01 cores_per_socket)" 4 "node01 has its shape"
is "$(node_field node03 features)" '"ib"' "node03 has only ib"

like "$(sub '{"constraint": "h100"}')" \
    'Invalid feature specification: no node of partition all matches constraint "h100"' \
    "a constraint no node meets is refused"
like "$(sub '{"constraint": "a100&(ib"}')" \
    "Invalid feature specification: expected '\)'" \
    "a malformed constraint is refused, naming the place"
like "$(sub '{"tmp_mib": 20000}')" \
    'no node of partition all has what the job asks for \(TmpDisk=10000 < tmp_mib 20000\)' \
    "--tmp beyond every node's TmpDisk is refused"

# exclusive: node03 whole; another job pinned there waits
x=$(sub '{"exclusive": "node", "nodelist": "node03", "cpus_per_task": 1}')
like "$x" '^[0-9]+$' "an --exclusive job is accepted"
wait_for 10 running "$x" || not_ok "the exclusive job runs"
is "$(node_of "$x")" node03 "it runs on node03"
is "$(sinfo -h -N -n node03 -o %T)" allocated \
    "node03 shows allocated (not mixed) with a 1-CPU exclusive job"
is "$(node_field node03 cpus_alloc)" 4 "the exclusive job holds all 4 CPUs"
is "$(field "$x" exclusive)" '"node"' "the JOB object says exclusive node"
y=$(sub '{"nodelist": "node03", "cpus_per_task": 1}')
sleep 1
is "$(job_state "$y")" PENDING "another job cannot join the exclusive node"

# constraint: two jobs that need a100 land on node01 and node02
c1=$(sub '{"constraint": "a100", "cpus_per_task": 4}')
c2=$(sub '{"constraint": "a100&ib", "cpus_per_task": 4, "comment": "c2 here"}')
wait_for 10 running "$c1" || not_ok "the first a100 job runs"
wait_for 10 running "$c2" || not_ok "the second a100 job runs"
is "$(printf '%s\n' "$(node_of "$c1")" "$(node_of "$c2")" | sort | tr '\n' ' ')" \
    "node01 node02 " "the a100 jobs run on the a100 nodes"
is "$(field "$c2" constraint)" '"a100&ib"' "the JOB object echoes the constraint"
is "$(field "$c2" comment)" '"c2 here"' "... and the comment"

# a third a100 job waits; explain says why node03 is no use to it
c3=$(sub '{"constraint": "a100", "cpus_per_task": 4}')
sleep 1
is "$(job_state "$c3")" PENDING "a third a100 job waits for an a100 node"
like "$(sluice explain "$c3" | grep node03)" \
    "node03.*does not meet the job's needs: Features=ib do not match constraint a100" \
    "sluice explain says node03 lacks the feature"
scancel "$c3"

# exclusive on a GPU node: every GPU of it, though it asked for none
scancel "$c1" "$c2"
wait_for 10 sh -c "squeue -h -t all -j $c1,$c2 -o %T | grep -vq RUNNING" ||
    not_ok "the a100 jobs end"
g=$(sub '{"exclusive": "node", "nodelist": "node01"}')
wait_for 10 running "$g" || not_ok "the exclusive job runs on node01"
is "$(field "$g" tres_per_node)" '"gres:gpu:2"' \
    "an exclusive job holds all GPUs of its node"
is "$(node_field node01 gres_used)" '"gpu:2(IDX:0-1)"' \
    "node01 shows both GPUs in use"
is "$(field "$g" mem_mib)" 4000 "... and all its memory"

# time-min: node03 runs a 10-minute job on 2 CPUs and a 4-CPU job waits
# for it (a backfill reservation at its end); a 2-CPU job asking for 20
# minutes would delay that, but with --time-min=5 backfill starts it now
# with a limit that ends before the reservation
scancel "$x" "$y"
wait_for 10 sh -c "squeue -h -t all -j $x,$y -o %T | grep -vq -e RUNNING -e PENDING" ||
    not_ok "the exclusive jobs end"
a=$(sub '{"nodelist": "node03", "cpus_per_task": 2, "time_limit_s": 600}')
wait_for 10 running "$a" || not_ok "the 10-minute job runs on node03"
b=$(sub '{"nodelist": "node03", "cpus_per_task": 4, "time_limit_s": 600}')
t=$(sub '{"nodelist": "node03", "cpus_per_task": 2, "time_limit_s": 1200, "time_min_s": 300}')
wait_for 15 running "$t" || not_ok "backfill starts the time-min job"
is "$(job_state "$b")" PENDING "the 4-CPU job still waits for node03"
lim=$(field "$t" time_limit_s)
ok_lim=no
[ "$lim" -ge 300 ] && [ "$lim" -le 600 ] && [ $((lim % 60)) = 0 ] && ok_lim=yes
is "$ok_lim" yes "its limit was cut to whole minutes between 5 and 10 ($lim s)"
is "$(field "$t" time_min_s)" 300 "the JOB object keeps time_min_s"
scancel "$a" "$b" "$t"

# deadline: a held job that can no longer end by its deadline
now=$(date +%s)
d=$(sub "{\"hold\": true, \"time_limit_s\": 600, \"deadline\": $((now + 300))}")
like "$d" '^[0-9]+$' "a job with a deadline is accepted"
wait_for 10 sh -c "squeue -h -t all -j $d -o %T | grep -qx DEADLINE" ||
    not_ok "the job past its deadline ends DEADLINE"
is "$(squeue -h -t all -j "$d" -o %T)" DEADLINE "it ended DEADLINE"
is "$(field "$d" state_reason)" '"DeadLine"' "with reason DeadLine"

scancel "$g"
finish
