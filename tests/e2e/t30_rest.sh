#!/usr/bin/env bash
# The slurmrestd-compatible REST API (docs/rest.md) against a real local
# cluster, with curl: a token from scontrol token and 401 without one (or
# with a forged or expired one); a job submitted over HTTP that runs, is
# read back, updated, signalled and cancelled, with the state squeue
# agrees with; another user's job visible but not theirs to cancel or
# change (403); sacct's history and the accounting entities under
# /slurmdb; bad input refused 400 with the field named while the
# controller goes on serving; and every answer validated against the
# OpenAPI document the controller serves at /openapi/v3 (rest_check.py).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
command -v curl >/dev/null || skip_all "curl is not installed"
"$PY" -c 'import jsonschema' 2>/dev/null ||
    skip_all "$PY with python3-jsonschema is needed"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
OTHER=
trap 'cluster_stop; [ -z "$OTHER" ] || userdel "$OTHER" 2>/dev/null' EXIT

ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
URL=http://$ADDR
REC=$DIR/rest
mkdir -p "$REC"
echo 0 >"$REC/n"
TOKEN=

# rest [-t TOKEN | -n] [-H HEADER] METHOD PATH [BODY]: one request as
# TOKEN's user (default $TOKEN; -n: none).  Sets STATUS and OUT (the
# answer) and records the exchange (N.meta, N.body) for the OpenAPI
# check at the end.
rest() {
    local tok=$TOKEN hdr=()
    while :; do
        case $1 in
        -t) tok=$2; shift 2 ;;
        -n) tok=; shift ;;
        -H) hdr+=(-H "$2"); shift 2 ;;
        *) break ;;
        esac
    done
    local method=$1 path=$2 args N
    # numbered in a file: rest also runs in $(...) subshells
    N=$(($(cat "$REC/n") + 1))
    echo "$N" >"$REC/n"
    args=(-s -o "$REC/$N.body" -w '%{http_code}' -X "$method" "${hdr[@]}")
    [ -n "$tok" ] && args+=(-H "X-SLURM-USER-TOKEN: $tok")
    [ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    STATUS=$(curl "${args[@]}" "$URL$path")
    OUT=$(cat "$REC/$N.body")
    echo "$method $path $STATUS" >"$REC/$N.meta"
}

# jv EXPR: a Python expression of the last answer d ('d["jobs"][0]');
# strings bare, everything else as JSON.
jv() {
    printf '%s' "$OUT" | "$PY" -c '
import json, sys
try:
    v = eval(sys.argv[1], {"d": json.load(sys.stdin)})
except Exception as e:
    v = "<%s>" % type(e).__name__
print(v if isinstance(v, str) else json.dumps(v))' "$1"
}

# submit_body NAME SCRIPT [JOB_JSON_MEMBERS]: a job/submit body.
submit_body() {
    "$PY" -c '
import json, sys
job = {"name": sys.argv[1], "partition": "backtest", "time_limit": 10,
       "environment": {"PATH": "/usr/bin:/bin", "GREETING": "hi"},
       "current_working_directory": sys.argv[3]}
job.update(json.loads("{" + sys.argv[4] + "}"))
print(json.dumps({"script": sys.argv[2], "job": job}))' "$1" "$2" "$WORK" "${3-}"
}

# rest_state ID: the job's state as GET job/{ID} gives it.
rest_state() {
    rest GET "/slurm/v0.0.38/job/$1"
    jv 'd["jobs"][0]["job_state"]'
}
rest_state_is() {
    [ "$(rest_state "$1")" = "$2" ]
}

# --- the document and tokens ------------------------------------------
rest -n GET /openapi/v3
is "$STATUS" 200 "GET /openapi/v3 needs no token"
printf '%s\n' "$OUT" >"$DIR/openapi.json"
like "$(jv 'd["openapi"]')" '^3\.0\.' "it is an OpenAPI 3.0 document"

TOKEN=$(scontrol token lifespan=900 | sed -n 's/^SLURM_JWT=//p')
like "$TOKEN" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' \
    "scontrol token prints SLURM_JWT=<a JWT>"
rest GET /slurm/v0.0.38/ping
is "$STATUS $(jv 'd["pings"][0]["ping"]')" "200 UP" "ping with the token: UP"

rest -n GET /slurm/v0.0.38/jobs
is "$STATUS" 401 "GET jobs without a token: 401"
like "$(jv 'd["errors"][0]["error"]')" "authentication required" \
    "the 401 says a token is needed"
forged=$("$PY" -c '
import base64, json, sys
h, p, s = sys.argv[1].split(".")
c = json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))
c["exp"] += 86400
p = base64.urlsafe_b64encode(json.dumps(c).encode()).decode().rstrip("=")
print(".".join([h, p, s]))' "$TOKEN")
rest -t "$forged" GET /slurm/v0.0.38/jobs
is "$STATUS" 401 "a token whose claims were changed (exp) is refused: 401"
short=$(scontrol token lifespan=1 | sed -n 's/^SLURM_JWT=//p')
sleep 2
rest -t "$short" GET /slurm/v0.0.38/jobs
is "$STATUS" 401 "an expired token is refused: 401"
like "$(jv 'd["errors"][0]["error"]')" "expired" "the 401 says it expired"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    "$URL/slurm/v0.0.38/ping")
is "$code" 200 "Authorization: Bearer works as well"

# --- a job's life over HTTP -------------------------------------------
script='#!/bin/bash
trap "echo got-usr1 >>usr1-$SLURM_JOB_ID.txt" USR1
echo "rest job $SLURM_JOB_ID $GREETING"
while [ ! -e stop ]; do sleep 0.1; done
'
rest POST /slurm/v0.0.38/job/submit \
    "$(submit_body rest1 "$script" '"nodes": [1, 2], "standard_output": "rest1-%j.out"')"
is "$STATUS" 200 "POST job/submit: 200"
id=$(jv 'd["job_id"]')
like "$id" '^[0-9]+$' "the answer has the job_id"
is "$(jv 'd["step_id"]')" batch "and step_id batch"
is "$(jv 'd["warnings"][0]["source"]')" job.nodes \
    "nodes [1, 2] warns that Sluice allocates the minimum"
wait_for 15 rest_state_is "$id" RUNNING
rest GET "/slurm/v0.0.38/job/$id"
is "$(jv 'd["jobs"][0]["job_state"]')" RUNNING "GET job/{id}: the job runs"
is "$(jv 'd["jobs"][0]["name"]') $(jv 'd["jobs"][0]["partition"]') $(jv 'd["jobs"][0]["time_limit"]')" \
    "rest1 backtest 10" "its name, partition and time limit are what was asked"
is "$(job_state "$id")" RUNNING "squeue agrees"
wait_for 10 test -s "rest1-$id.out"
is "$(cat "rest1-$id.out" 2>&1)" "rest job $id hi" \
    "the job ran in its directory with the environment given"

rest POST "/slurm/v0.0.38/job/$id" '{"time_limit": 5, "name": "rest1b", "comment": "via rest"}'
is "$STATUS" 200 "POST job/{id} (time_limit, name, comment): 200"
rest GET "/slurm/v0.0.38/job/$id"
is "$(jv 'd["jobs"][0]["time_limit"]') $(jv 'd["jobs"][0]["name"]') $(jv 'd["jobs"][0]["comment"]')" \
    "5 rest1b via rest" "the job shows the new limit, name and comment"
like "$(scontrol show job "$id")" "Comment=via rest" "scontrol show job has the comment"
scontrol update JobId="$id" Comment="by scontrol"
rest GET "/slurm/v0.0.38/job/$id"
is "$(jv 'd["jobs"][0]["comment"]')" "by scontrol" \
    "scontrol update Comment= changes it too, seen over HTTP"

rest DELETE "/slurm/v0.0.38/job/$id?signal=SIGUSR1"
is "$STATUS" 200 "DELETE job/{id}?signal=SIGUSR1: 200"
wait_for 10 grep -q got-usr1 "usr1-$id.txt"
is "$(cat "usr1-$id.txt" 2>/dev/null)" got-usr1 "the job's trap got SIGUSR1"
is "$(rest_state "$id")" RUNNING "a signal does not end the job"

rest DELETE "/slurm/v0.0.38/job/$id"
is "$STATUS" 200 "DELETE job/{id}: 200"
wait_for 15 rest_state_is "$id" CANCELLED
is "$(rest_state "$id")" CANCELLED "GET job/{id}: CANCELLED"
is "$(job_state "$id")" CANCELLED "squeue agrees"
rest DELETE "/slurm/v0.0.38/job/$id"
is "$STATUS" 409 "cancelling it again: 409"
like "$(jv 'd["errors"][0]["error"]')" "already completing or completed" \
    "with Slurm's words"
rest DELETE /slurm/v0.0.38/job/999999
is "$STATUS $(jv 'd["errors"][0]["error"]')" "404 job 999999: Invalid job id specified" \
    "cancelling an unknown job: 404"

# --- another user -------------------------------------------------------
rest POST /slurm/v0.0.38/job/submit "$(submit_body held "$script" '"hold": true')"
held=$(jv 'd["job_id"]')
is "$(rest_state "$held")" PENDING "a job submitted with hold: true waits"
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null &&
    useradd -M -d /nonexistent -s /bin/sh "sluicer$$" 2>/dev/null; then
    OTHER=sluicer$$
    sacctmgr -i add user "$OTHER" account=root >/dev/null
    otok=$(scontrol token username="$OTHER" | sed -n 's/^SLURM_JWT=//p')
    like "$otok" '^[^.]+\.[^.]+\.[^.]+$' "root gets a token for $OTHER"
    rest -t "$otok" GET /slurm/v0.0.38/jobs
    is "$STATUS" 200 "$OTHER: GET jobs"
    like "$(jv '[j["job_id"] for j in d["jobs"]]')" "(\[|, )$held(\]|,)" \
        "$OTHER sees root's pending job, as squeue shows every user's"
    rest -t "$otok" GET "/slurm/v0.0.38/job/$held"
    is "$STATUS $(jv 'd["jobs"][0]["user_name"]')" "200 root" "$OTHER may read it"
    rest -t "$otok" DELETE "/slurm/v0.0.38/job/$held"
    is "$STATUS" 403 "$OTHER may not cancel it: 403"
    is "$(jv 'd["errors"][0]["error"]')" "job $held: Access/permission denied" \
        "with Slurm's words"
    rest -t "$otok" POST "/slurm/v0.0.38/job/$held" '{"name": "mine"}'
    is "$STATUS" 403 "$OTHER may not change it: 403"
    like "$(jv 'd["errors"][0]["error"]')" "Access/permission denied" \
        "the 403 says why"
    rest -t "$otok" POST "/slurm/v0.0.38/job/$held" '{"hold": false}'
    is "$STATUS" 403 "nor release it: 403"
    rest -t "$otok" -H "X-SLURM-USER-NAME: root" GET /slurm/v0.0.38/ping
    is "$STATUS" 401 "$OTHER's token cannot speak for root (X-SLURM-USER-NAME)"
    rest -H "X-SLURM-USER-NAME: $OTHER" DELETE "/slurm/v0.0.38/job/$held"
    is "$STATUS" 403 "root's token speaking for $OTHER gets $OTHER's rights"
    is "$(rest_state "$held")" PENDING "the job is untouched"
    chmod 755 "$DIR" "$WORK"
    rest -t "$otok" POST /slurm/v0.0.38/job/submit \
        "$(submit_body theirs "$script" '"hold": true, "current_working_directory": "/tmp"')"
    mine=$(jv 'd["job_id"]')
    is "$STATUS" 200 "$OTHER submits a job of their own"
    rest GET "/slurm/v0.0.38/job/$mine"
    is "$(jv 'd["jobs"][0]["user_name"]')" "$OTHER" "it is $OTHER's"
    rest -t "$otok" DELETE "/slurm/v0.0.38/job/$mine"
    is "$STATUS" 200 "$OTHER cancels their own job"
    wait_for 10 rest_state_is "$mine" CANCELLED
    is "$(rest_state "$mine")" CANCELLED "it is CANCELLED"
    rest -t "$otok" GET "/slurmdb/v0.0.38/jobs?users=root"
    like "$(jv '[j["job_id"] for j in d["jobs"]]')" "(\[|, )$id(\]|,)" \
        "$OTHER reads root's history too (no PrivateData)"
else
    ok "# SKIP another user's rights (needs root and useradd)"
fi
rest POST "/slurm/v0.0.38/job/$held" '{"hold": false, "time_limit": 2}'
is "$STATUS" 200 "root releases the held job"
wait_for 15 rest_state_is "$held" RUNNING
is "$(rest_state "$held")" RUNNING "it starts"

# --- bad input: 400 naming what is wrong -------------------------------
bad() { # bad WANT_STATUS REGEX WHAT METHOD PATH [BODY]
    local want=$1 re=$2 what=$3
    shift 3
    rest "$@"
    is "$STATUS" "$want" "$what: $want"
    like "$(jv 'd["errors"][0]["error"]')" "$re" "$what: the error says so"
}
S='"script": "#!/bin/sh\ntrue\n"'
bad 400 'line 1 column' "a malformed JSON body" POST /slurm/v0.0.38/job/submit '{"script": '
bad 400 'not a JSON object' "a body that is not an object" POST /slurm/v0.0.38/job/submit '[1, 2]'
bad 400 'job\.colour: unknown field' "an unknown field" \
    POST /slurm/v0.0.38/job/submit "{$S, \"job\": {\"colour\": \"blue\"}}"
bad 400 'job\.tasks: expected an integer' "a field of the wrong type" \
    POST /slurm/v0.0.38/job/submit "{$S, \"job\": {\"tasks\": \"many\"}}"
bad 400 'job\.licenses: not supported' "a field Sluice does not have" \
    POST /slurm/v0.0.38/job/submit "{$S, \"job\": {\"licenses\": \"matlab:1\"}}"
bad 400 'script: missing' "no script" POST /slurm/v0.0.38/job/submit '{"job": {}}'
bad 400 'jobs: Sluice has no heterogeneous jobs' "two jobs in one" \
    POST /slurm/v0.0.38/job/submit "{$S, \"jobs\": [{}, {}]}"
bad 400 'invalid partition name "nosuch"' "a partition that does not exist" \
    POST /slurm/v0.0.38/job/submit "{$S, \"job\": {\"partition\": \"nosuch\"}}"
bad 400 'job\.qos: POST job/\{job_id\} cannot change it' "an update of what cannot change" \
    POST "/slurm/v0.0.38/job/$held" '{"qos": "normal"}'
bad 400 'job\.time_limit: expected minutes' "an update with a bad value" \
    POST "/slurm/v0.0.38/job/$held" '{"time_limit": "soon"}'
bad 400 'job: nothing to change' "an empty update" POST "/slurm/v0.0.38/job/$held" '{}'
bad 400 'signal=NOPE: expected a signal' "a signal that does not exist" \
    DELETE "/slurm/v0.0.38/job/$held?signal=NOPE"
bad 400 'query parameter colour: not known here' "an unknown query parameter" \
    GET '/slurm/v0.0.38/jobs?colour=blue'
bad 400 'job_id "abc": expected a job id' "a job id that is not one" \
    GET /slurm/v0.0.38/job/abc
bad 400 'cpus_max: not supported' "a slurmdbd filter Sluice lacks" \
    GET '/slurmdb/v0.0.38/jobs?cpus_max=4'
bad 400 'start_time=yesterday: expected' "a time that is not one" \
    GET '/slurmdb/v0.0.38/jobs?start_time=yesterday'
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-SLURM-USER-TOKEN: $TOKEN" \
    -X DELETE "$URL/slurm/v0.0.38/jobs")
is "$code" 405 "DELETE on jobs: 405"
rest GET /slurm/v0.0.38/ping
is "$STATUS" 200 "after all that the controller still answers"

# --- the cluster's objects -----------------------------------------------
rest GET /slurm/v0.0.38/nodes
is "$STATUS $(jv '[n["name"] for n in d["nodes"]]')" \
    '200 ["node01", "node02", "node03", "node04"]' "GET nodes: the four nodes"
rest GET /slurm/v0.0.38/node/node04
is "$STATUS $(jv 'd["nodes"][0]["partitions"]')" '200 ["dev"]' "GET node/node04"
bad 404 'Invalid node name specified: nosuch' "an unknown node" GET /slurm/v0.0.38/node/nosuch
rest GET /slurm/v0.0.38/partitions
is "$STATUS $(jv '[p["name"] for p in d["partitions"]]')" \
    '200 ["prod", "backtest", "dev"]' "GET partitions"
rest GET /slurm/v0.0.38/partition/dev
is "$(jv 'd["partitions"][0]["max_time_limit"]')" 1440 "GET partition/dev: MaxTime in minutes"
bad 404 'Invalid partition name specified: nosuch' "an unknown partition" \
    GET /slurm/v0.0.38/partition/nosuch
scontrol create reservation ReservationName=window StartTime=now+3600 Duration=60 \
    Nodes=node04 Users=root >/dev/null
rest GET /slurm/v0.0.38/reservations
is "$STATUS $(jv '[r["name"] for r in d["reservations"]]')" '200 ["window"]' "GET reservations"
rest GET /slurm/v0.0.38/reservation/window
is "$(jv 'd["reservations"][0]["node_list"]') $(jv 'd["reservations"][0]["sluice"]["state"]')" \
    "node04 INACTIVE" "GET reservation/window"
bad 404 'not found' "an unknown reservation" GET /slurm/v0.0.38/reservation/nosuch
rest GET /slurm/v0.0.38/diag
is "$STATUS $(jv 'd["statistics"]["jobs_running"]') $(jv 'd["statistics"]["jobs_canceled"] >= 1')" \
    "200 1 true" "GET diag: the running job, the cancelled ones"

# --- /slurmdb: the history and the accounting entities -------------------
rest GET "/slurmdb/v0.0.38/job/$id"
is "$STATUS $(jv 'd["jobs"][0]["state"]["current"]')" "200 CANCELLED" \
    "slurmdb job/{id}: the cancelled job's record"
is "$(jv 'd["jobs"][0]["steps"][0]["step"]["id"]') $(jv 'd["jobs"][0]["name"]')" "batch rest1b" \
    "with its batch step and its last name"
rest GET "/slurmdb/v0.0.38/jobs?users=root&state=CANCELLED&start_time=$(date +%F)"
like "$(jv '[j["job_id"] for j in d["jobs"]]')" "(\[|, )$id(\]|,)" \
    "slurmdb jobs?users=root&state=CANCELLED&start_time=today has it"
rest GET '/slurmdb/v0.0.38/jobs?partition=dev'
is "$(jv 'd["jobs"]')" '[]' "slurmdb jobs?partition=dev: none ran there"
rest GET "/slurmdb/v0.0.38/jobs?job_name=rest1b&skip_steps=true"
is "$(jv '[len(d["jobs"]), d["jobs"][0]["steps"]]')" '[1, []]' \
    "slurmdb jobs?job_name=...&skip_steps=true"
bad 404 'Invalid job id specified' "an unknown job in the history" \
    GET /slurmdb/v0.0.38/job/999999
rest GET /slurmdb/v0.0.38/qos
like "$(jv '[q["name"] for q in d["qos"]]')" '"normal"' "slurmdb qos lists normal"
rest GET /slurmdb/v0.0.38/qos/normal
is "$STATUS $(jv 'd["qos"][0]["name"]')" "200 normal" "slurmdb qos/normal"
bad 404 'QOS nosuch not found' "an unknown QOS" GET /slurmdb/v0.0.38/qos/nosuch
rest GET '/slurmdb/v0.0.38/associations?user=root'
is "$STATUS $(jv 'sorted(set(a["user"] for a in d["associations"]))')" '200 ["root"]' \
    "slurmdb associations?user=root: root's only"
rest GET /slurmdb/v0.0.38/users
like "$(jv '[u["name"] for u in d["users"]]')" '"root"' "slurmdb users lists root"
rest GET /slurmdb/v0.0.38/user/root
is "$(jv 'd["users"][0]["default"]["account"]')" root "slurmdb user/root: default account root"
rest GET /slurmdb/v0.0.38/accounts
like "$(jv '[a["name"] for a in d["accounts"]]')" '"root"' "slurmdb accounts lists root"
rest GET /slurmdb/v0.0.38/account/root
is "$STATUS $(jv 'd["accounts"][0]["name"]')" "200 root" "slurmdb account/root"

touch stop
wait_for 15 job_ended "$held"

# --- every answer against the document ------------------------------------
# one answer spoiled on purpose: the check must catch it
cp "$REC/2.meta" "$REC/0.meta"
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["pings"][0]["status"] = "0"
json.dump(d, open(sys.argv[2], "w"))' "$REC/2.body" "$REC/0.bad"
like "$(cat "$REC"/*.meta | grep -c ' 40[134]$')" '^[1-9][0-9]*$' \
    "error answers are among those checked"
checked=$("$PY" "$E2E_ROOT/tests/e2e/rest_check.py" "$DIR/openapi.json" "$REC" 2>&1)
rc=$?
while IFS= read -r line; do
    case $line in
    "ok - "*) ok "${line#ok - }" ;;
    "not ok - "*) not_ok "${line#not ok - }" ;;
    *) echo "$line" ;;
    esac
done <<<"$checked"
is "$rc" 0 "rest_check.py: every one of $(cat "$REC/n") answers matches the document"
cluster_gone
finish
