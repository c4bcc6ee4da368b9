#!/usr/bin/env bash
# sluice doctor on a cluster made to have each problem it looks for, and on
# one that has none.  The seed's partitions (prod node01 with
# MaxTime=INFINITE, backtest node02-03, dev node04) under partition_prio
# can never preempt each other; its QOS priorities 1000/500/100 count for
# nothing with PriorityWeightQOS=0; a prod job runs without a time limit;
# node04 is configured Gres=gpu:4 but finds none (sluice up --no-gpus) and
# a dev GPU job waits for it alone; node03's clock is 20 s ahead (the test
# knob SLUICE_TEST_CLOCK_SKEW_S); node02's daemon runs on a host named
# node2 (unshare -u, as root only); a daemon with another key knocks.  Each
# finding is checked in the text and in --json, and the exit status is 1
# (node04 is an error).  A clean cluster has no finding and exits 0.
. "$(dirname "$0")/lib.sh"

# doctor_json PYTHON-EXPR: evaluated with d = sluice doctor --json, and
# f(check, where) = the finding (or None).
doctor_json() {
    sluice doctor --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
def f(check, where):
    for x in d["errors"] + d["warnings"]:
        if x["check"] == check and x["where"] == where:
            return ("error" if x in d["errors"] else "warning") + " " + x["message"] + " | " + x["fix"]
    return None
print(eval(sys.argv[1]))' "$1"
}

# restart NODE [ARGS...]: stop NODE's daemon, start what is missing again
# with sluice up ARGS (the environment goes with it).
restart() {
    local node=$1 pid
    shift
    pid=$(cat "$DIR/pids/$node.pid")
    kill "$pid"
    wait_for 10 eval "! alive $pid"
    sluice up --dir "$DIR" "$@" >/dev/null 2>"$DIR/up-$node.err" ||
        sed 's/^/#   /' "$DIR/up-$node.err"
}

cluster_start "$E2E_ROOT/tests/e2e/conf/doctor.conf"

# the seed's QOS, and a prod job without a time limit
for q in prod_qos:1000 backtest_qos:500 dev_qos:100; do
    sacctmgr -i add qos "${q%:*}" priority="${q#*:}" >/dev/null
done
prod=$(submit -p prod --wrap 'sleep 300')
wait_for 10 test "$(job_state "$prod")" = RUNNING ||
    not_ok "the prod job runs"

# node04 finds no GPUs; a GPU job for dev waits for it alone
restart node04 --no-gpus=node04
wait_for 10 test "$(sinfo -h -N -n node04 -o %t)" = inval
waiting=$(submit -p dev --gres=gpu:1 --wrap true)
wait_for 10 eval "squeue -h -j $waiting -o %r | grep -q UnavailableNodes"

# node03's clock 20 s ahead
SLUICE_TEST_CLOCK_SKEW_S=20 restart node03 --no-gpus=node04
wait_for 10 eval "sluice show node node03 --json=sluice | grep -q '\"clock_offset_s\": 2'"
like "$(cat "$DIR/log/node03.log")" "SLUICE_TEST_CLOCK_SKEW_S=20: the node reports its clock 20 s off \(for tests only\)" \
    "sluiced warns about the clock knob in its log"

# node02's daemon on a host named node2 (a UTS namespace of its own)
renamed=no
if [ "$(id -u)" = 0 ] && unshare -u true 2>/dev/null; then
    pid=$(cat "$DIR/pids/node02.pid")
    kill "$pid"
    wait_for 10 eval "! alive $pid"
    unshare -u sh -c 'hostname node2 && exec "$0" -N node02 -f "$1" -D -L "$2"' \
        "$E2E_BIN/sluiced" "$SLUICE_CONF" "$DIR/log/node02.log" \
        >>"$DIR/log/node02.out" 2>&1 &
    echo $! >"$DIR/pids/node02.pid"
    wait_for 10 eval "sluice show node node02 --json=sluice | grep -q '\"hostname_reported\": \"node2\"'" &&
        renamed=yes
fi

# a daemon with another key: refused, and counted for its address
mkdir -p "$DIR/rogue"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/rogue/other.key"
chmod 600 "$DIR/rogue/other.key"
sed -e "s|^AuthInfo=.*|AuthInfo=$DIR/rogue/other.key|" \
    -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$DIR/rogue/spool|" \
    "$SLUICE_CONF" >"$DIR/rogue/sluice.conf"
sluiced -N node01 -f "$DIR/rogue/sluice.conf" -D -L "$DIR/rogue/sluiced.log" \
    2>/dev/null &
rogue=$!
wait_for 10 eval "sdiag --json | grep -q 'credential MAC does not verify'"
kill "$rogue"
wait_for 10 eval "! alive $rogue"

out=$(sluice doctor)
rc=$?
is "$rc" 1 "sluice doctor exits 1: node04 is an error"
like "$out" "^node node04: error: Gres=gpu:4 is configured, but its sluiced reports 0 GPUs \(gres.conf declares 0 GPUs for node04\); the node is INVALID: no job starts there; 1 pending job waits only for it: $waiting; fix: make the GPUs visible to sluiced on node04 .* \[gpus\]$" \
    "text: node04's missing GPUs, and the job that waits only for them"
like "$out" "^node node03: warning: its clock is 2[01] s ahead of the controller's: .*; fix: run NTP .* \[clock\]$" \
    "text: node03's clock"
like "$out" "^partition prod: warning: PreemptType=preempt/partition_prio, but prod \(PriorityTier 100, node01\) shares no node with a partition of a lower tier \(backtest \(node\[02-03\]\), dev \(node04\)\): its jobs can never preempt theirs; fix: .* \[preempt_reach\]$" \
    "text: prod can never preempt (the seed's disjoint partitions)"
like "$out" "^partition backtest: warning: .*shares no node with a partition of a lower tier \(dev \(node04\)\).* \[preempt_reach\]$" \
    "text: nor can backtest"
like "$out" "^PriorityWeightQOS: warning: QOS priorities differ \(prod_qos 1000, backtest_qos 500, dev_qos 100, normal 0\), but PriorityWeightQOS=0: a job's QOS does not change its priority; fix: .* \[prio_weights\]$" \
    "text: the seed's QOS priorities weigh nothing"
like "$out" "^partition prod: warning: 1 running job without a time limit \($prod\), in a partition with MaxTime=INFINITE: .*; fix: set DefaultTime= .* \[time_limit\]$" \
    "text: the prod job without a time limit"
like "$out" "^peer 127\.0\.0\.1 \(node\[01-04\]\): warning: [0-9]+ credentials? refused, the last [0-9]+ s ago: auth/key: credential MAC does not verify \(signed with a different key\?\); fix: find what runs at 127\.0\.0\.1 with another key .* \[auth\]$" \
    "text: the credentials of another key, by address"
if [ "$renamed" = yes ]; then
    like "$out" "^node node02: warning: its sluiced runs on host \"node2\", which is neither its NodeName nor its NodeHostname \([^)]*\): .*; fix: rename the host to node02, or set NodeHostname=node2 on NodeName=node02 \[hostname\]$" \
        "text: node02's daemon on host node2"
else
    ok "# SKIP node02 on another host name needs root and unshare -u"
fi
like "$(printf '%s\n' "$out" | tail -1)" "^doctor: 1 error, [0-9]+ warnings \(4 nodes, 3 partitions, 2 pending or running jobs checked\)$" \
    "text: a closing count"
is "$(printf '%s\n' "$out" | grep -c 'node node01')" 0 "nothing is wrong with node01"

is "$(doctor_json 'd["ok"]')" False "--json: not ok"
like "$(doctor_json 'f("gpus", "node node04")')" "^error Gres=gpu:4 is configured, .*waits only for it: $waiting \| make the GPUs visible" \
    "--json: node04's GPUs"
like "$(doctor_json 'f("clock", "node node03")')" "^warning its clock is 2[01] s ahead" "--json: node03's clock"
like "$(doctor_json 'f("preempt_reach", "partition prod")')" "^warning PreemptType=preempt/partition_prio, but prod" \
    "--json: prod's preemption"
like "$(doctor_json 'f("prio_weights", "PriorityWeightQOS")')" "^warning QOS priorities differ .* \| give QOS priorities a weight" \
    "--json: the QOS weight"
like "$(doctor_json 'f("time_limit", "partition prod")')" "^warning 1 running job without a time limit \($prod\)" \
    "--json: the job without a time limit"
like "$(doctor_json 'f("auth", "peer 127.0.0.1 (node[01-04])")')" "^warning [0-9]+ credentials? refused" \
    "--json: the refused credentials"
if [ "$renamed" = yes ]; then
    like "$(doctor_json 'f("hostname", "node node02")')" "^warning its sluiced runs on host \"node2\"" \
        "--json: node02's host name"
else
    ok "# SKIP node02 on another host name needs root and unshare -u"
fi
is "$(doctor_json 'len(d["errors"])')" 1 "--json: one error"
cluster_gone
cluster_stop

# a clean cluster: nothing to say
cluster_start "$E2E_ROOT/tests/e2e/conf/four.conf"
out=$(sluice doctor)
is "$?" 0 "a clean cluster: exit 0"
is "$out" "doctor: no findings (4 nodes, 1 partition, 0 pending or running jobs checked)" \
    "a clean cluster: no findings"
is "$(doctor_json '(d["ok"], d["errors"], d["warnings"], len(d["checks"]))')" \
    "(True, [], [], 10)" "a clean cluster: --json has none either"
cluster_gone
finish
