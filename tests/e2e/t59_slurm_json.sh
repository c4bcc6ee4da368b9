#!/usr/bin/env bash
# --json in Slurm 22.05's v0.0.38 schema, read the way tools read it:
# squeue --json (jobs[].job_state, job_resources), sinfo --json (nodes and
# partitions), sacct --json (jobs[].time.elapsed, state.current, exit_code,
# steps), scontrol show job|node|partition N --json; --json=sluice still
# gives Sluice's own objects; a bad schema name is refused.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/parts.conf"

# py EXPR: EXPR of the JSON document d read from stdin.
py() {
    python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}

run_id=$(submit -p dev -J spin --wrap 'sleep 600')
pend_id=$(submit -p dev -J waits -H --time=10 --wrap true)
fail_id=$(submit -p backtest -J fails --wrap 'sleep 1; exit 3')
wait_for 10 eval '[ "$(job_state '"$run_id"')" = RUNNING ]' ||
    not_ok "job $run_id did not start"
wait_for 30 job_ended "$fail_id" || not_ok "job $fail_id did not end"

# --- squeue ---------------------------------------------------------------------
q=$(squeue --json)
is "$(printf '%s' "$q" | py 'd["meta"]["plugin"]["type"], d["meta"]["Slurm"]["version"]["major"], d["errors"]')" \
    "openapi/v0.0.38 22 []" "squeue --json: meta and errors as Slurm's"
is "$(printf '%s' "$q" | py 'sorted((j["job_id"], j["job_state"]) for j in d["jobs"])')" \
    "[($run_id, 'RUNNING'), ($pend_id, 'PENDING')]" \
    "squeue --json: [j['job_state'] for j in d['jobs']], the finished job left out"
is "$(printf '%s' "$q" | py '[(j["name"], j["partition"], j["nodes"], j["job_resources"]["allocated_hosts"], j["cluster"], type(j["time_limit"]).__name__, j["comment"]) for j in d["jobs"] if j["job_id"] == '"$run_id"'][0]')" \
    "('spin', 'dev', 'node04', 1, 'e2e-parts', 'int', '')" \
    "squeue --json: a running job's name, partition, nodes, allocation, cluster; no comment: \"\""
is "$(printf '%s' "$q" | py '[(j["state_reason"], j["time_limit"], j["job_resources"]["allocated_nodes"], "sluice" in j) for j in d["jobs"] if j["job_id"] == '"$pend_id"'][0]')" \
    "('JobHeldUser', 10, [], True)" \
    "squeue --json: a held job's reason, its limit in minutes, no allocation"
is "$(squeue --json=sluice -j "$run_id" | py 'd["jobs"][0]["time_limit_s"], "meta" in d')" \
    "86400 False" "squeue --json=sluice: Sluice's own JOB objects"
msg=$(squeue --json=yaml 2>&1)
rc=$?
like "$msg" '--json=yaml: unknown schema' "squeue --json=yaml is refused, named"
is "$rc" 1 "... with exit 1"

# --- scontrol show --------------------------------------------------------------
is "$(scontrol show job "$run_id" --json | py 'len(d["jobs"]), d["jobs"][0]["job_id"], d["jobs"][0]["batch_host"], d["jobs"][0]["user_name"] != ""')" \
    "1 $run_id node04 True" "scontrol show job N --json: the job in jobs[0]"
is "$(scontrol --json show node node04 | py 'd["nodes"][0]["name"], d["nodes"][0]["state"], d["nodes"][0]["alloc_cpus"], d["nodes"][0]["cpus"], d["nodes"][0]["partitions"]')" \
    "node04 mixed 1 16 ['dev']" "scontrol show node --json: state in Slurm's words, CPUs"
is "$(scontrol show partition prod --json | py 'd["partitions"][0]["name"], d["partitions"][0]["max_time_limit"], d["partitions"][0]["total_nodes"]')" \
    "prod -1 1" "scontrol show partition --json: MaxTime=INFINITE is -1"

# --- sinfo ----------------------------------------------------------------------
s=$(sinfo --json)
is "$(printf '%s' "$s" | py 'sorted(n["name"] for n in d["nodes"]), sorted(p["name"] for p in d["partitions"])')" \
    "['node01', 'node02', 'node03', 'node04'] ['backtest', 'dev', 'prod']" \
    "sinfo --json: nodes and partitions"
is "$(printf '%s' "$s" | py '[(n["state"], n["idle_cpus"], n["real_memory"], n["gres"]) for n in d["nodes"] if n["name"] == "node01"][0]')" \
    "('idle', 16, 64000, 'gpu:4')" "sinfo --json: an idle node"
is "$(printf '%s' "$s" | py '[p["flags"] for p in d["partitions"] if p["name"] == "backtest"][0]')" \
    "['default']" "sinfo --json: the default partition's flags"

# --- sacct ----------------------------------------------------------------------
scancel "$run_id"
wait_for 30 job_ended "$run_id" || not_ok "job $run_id did not end"
a=$(sacct --json)
is "$(printf '%s' "$a" | py 'd["meta"]["plugin"]["type"], len(d["jobs"])')" \
    "openapi/dbv0.0.38 3" "sacct --json: slurmdbd's plugin, every job"
is "$(printf '%s' "$a" | py '[(j["state"]["current"], j["exit_code"]["status"], j["exit_code"]["return_code"], j["derived_exit_code"]["return_code"]) for j in d["jobs"] if j["job_id"] == '"$fail_id"'][0]')" \
    "('FAILED', 'FAILED', 3, 3)" "sacct --json: a failed job's state and exit code"
el=$(printf '%s' "$a" | py '[j["time"]["elapsed"] for j in d["jobs"] if j["job_id"] == '"$fail_id"'][0]')
like "$el" '^[1-9][0-9]*$' "sacct --json: d['jobs'][0]['time']['elapsed'] is seconds ($el)"
is "$(printf '%s' "$a" | py '[(j["state"]["current"], j["exit_code"]["signal"]["name"], [s["step"]["id"] for s in j["steps"]], j["comment"]["job"], j["association"]["cluster"]) for j in d["jobs"] if j["job_id"] == '"$run_id"'][0]')" \
    "('CANCELLED', 'TERM', ['batch'], '', 'e2e-parts')" \
    "sacct --json: a cancelled job, its signal, its batch step, comment and cluster"
is "$(printf '%s' "$a" | py '[(j["nodes"], j["steps"], j["time"]["start"]) for j in d["jobs"] if j["job_id"] == '"$pend_id"'][0]')" \
    "('None assigned', [], 0)" "sacct --json: a job that never ran"
is "$(printf '%s' "$a" | py '[(t["type"], t["count"]) for t in [j for j in d["jobs"] if j["job_id"] == '"$fail_id"'][0]["tres"]["allocated"]]')" \
    "[('cpu', 1), ('node', 1), ('billing', 1)]" "sacct --json: the allocated TRES as a list"
is "$(sacct --json=sluice | py 'sorted(j["state"] for j in d["jobs"])[0]')" \
    "CANCELLED by $(id -u)" "sacct --json=sluice: Sluice's own records"

finish
