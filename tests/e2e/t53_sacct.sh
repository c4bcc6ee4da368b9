#!/usr/bin/env bash
# sacct after a mixed run: completed, failed with exit 3, cancelled by the
# test's uid, timed out, held and released, a GPU job.  Every job shows its
# State, ExitCode, Elapsed, AllocTRES and Restarts; -P, -n, -o and --json
# work; the same history comes back after kill -9 of the controller.
. "$(dirname "$0")/lib.sh"

export SLUICE_TEST_TIME_DIVISOR=20 # --time=1 is 3 s (tests only)
cluster_start "$E2E_ROOT/tests/e2e/conf/parts.conf"
me=$(id -u)

ok_id=$(submit -p dev -J ok --wrap 'sleep 1')
fail_id=$(submit -p dev -J fail --wrap 'exit 3')
cancel_id=$(submit -p prod -J cancel --wrap 'sleep 60')
to_id=$(submit -p prod -J to --time=1 --wrap 'sleep 60')
held_id=$(submit -p dev -J held -H --wrap true)
gpu_id=$(submit -p backtest -J gpu --gres=gpu:2 --wrap 'sleep 1')
wait_for 10 eval '[ "$(job_state '"$cancel_id"')" = RUNNING ]'
scancel "$cancel_id"
scontrol release "$held_id"
for id in $ok_id $fail_id $cancel_id $to_id $held_id $gpu_id; do
    wait_for 30 job_ended "$id" || not_ok "job $id did not end"
done

row() {
    sacct -n -X -P -j "$1" -o JobName,State,ExitCode,Restarts
}
is "$(row "$ok_id")" "ok|COMPLETED|0:0|0" "a completed job: COMPLETED 0:0"
is "$(row "$fail_id")" "fail|FAILED|3:0|0" "a job that exits 3: FAILED 3:0"
is "$(row "$cancel_id")" "cancel|CANCELLED by $me|0:0|0" \
    "a cancelled job: CANCELLED by the canceller's uid, 0:0 on its own line as Slurm records it"
is "$(sacct -n -P -j "$cancel_id.batch" -o ExitCode)" "0:15" \
    "the cancelled job's batch step shows SIGTERM (0:15)"
is "$(row "$to_id")" "to|TIMEOUT|0:0|0" "a timed-out job: TIMEOUT 0:0"
is "$(row "$held_id")" "held|COMPLETED|0:0|0" "the held and released job ran"
like "$(sacct -n -X -P -j "$gpu_id" -o AllocTRES)" \
    '^billing=1,cpu=1,gres/gpu=2,node=1$' "the GPU job's AllocTRES has gres/gpu=2"
el=$(sacct -n -X -P -j "$ok_id" -o ElapsedRaw)
like "$el" '^[1-9][0-9]*$' "Elapsed of a 1 s job is at least 1 s ($el)"
is "$(sacct -n -P -j "$fail_id" -o JobID,State,ExitCode | tr '\n' ' ')" \
    "$fail_id|FAILED|3:0 $fail_id.batch|FAILED|3:0 " \
    "without -X the .batch step follows its job"
like "$(sluice acct --events "$held_id" | awk 'NR > 1 {print $2}' | tr '\n' ' ')" \
    '^submit hold release eligible start end $' "the held job's events"

# --- formats -------------------------------------------------------------------
hdr=$(sacct -j "$ok_id" | head -2)
is "$hdr" "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode 
------------ ---------- ---------- ---------- ---------- ---------- -------- " \
    "the default columns and widths are Slurm's"
is "$(sacct -p -n -X -j "$ok_id" -o JobID,State)" "$ok_id|COMPLETED|" "-p ends each field with |"
is "$(sacct -P -X -j "$ok_id" -o JobID,State | head -1)" "JobID|State" "-P has a header"
is "$(sacct -X -n -j "$cancel_id" -o State)" "CANCELLED+ " "a long value is cut with + as Slurm does"
n=$(sacct --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["jobs"]), sorted(j["state"]["current"] for j in d["jobs"])[0], all("events" in j["sluice"] for j in d["jobs"]))')
is "$n" "6 CANCELLED True" "--json parses: 6 jobs with their states and events (Slurm's schema)"
n=$(sacct --json=sluice | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["jobs"]), sorted(j["state"] for j in d["jobs"])[0], all("events" in j for j in d["jobs"]))')
is "$n" "6 CANCELLED by $me True" "--json=sluice: Sluice's own records"
msg=$(sacct -o JobID,Bogus 2>&1)
like "$msg" 'Invalid field requested: "Bogus"' "an unknown field is named"
msg=$(sacct -S yesterday-ish 2>&1)
like "$msg" 'invalid time "yesterday-ish"' "a bad time is named"
is "$(sacct -n -X -S now+1hours | wc -l)" "0" "-S in the future selects nothing"

# --- after kill -9 of the controller --------------------------------------------
before=$(sacct -l -P)
kill -9 "$(cat "$DIR/pids/sluicectld.pid")"
sleep 0.5
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err"
is "$(sacct -l -P)" "$before" "sacct -l shows the same history after a controller crash"

cluster_gone
finish
