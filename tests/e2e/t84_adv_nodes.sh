#!/usr/bin/env bash
# Node messages only from nodes (audit findings 6 and 7): a sacctmgr
# Operator cannot register as a node, receive other users' launches or end
# their jobs; root, who may speak for nodes, cannot make one connection two
# nodes (the use-after-free of finding 7), and a node that re-registers on
# a new connection takes the node over from the old one cleanly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup
sacctmgr -i modify user "$MAL" set AdminLevel=Operator >/dev/null

wait_for 10 sh -c "sinfo -h -N -o '%N %t' | grep -q 'node01 idle'"
victim=$(as_user "$GOOD" sbatch --parsable -p dev -t 5 --wrap 'sleep 60')
wait_for 10 sh -c "squeue -h -j $victim -o %T | grep -q RUNNING"

# The Operator registers as node01, then waits for a LAUNCH of GOOD's job.
out=$(adv_py "$MAL" "$victim" <<'PY' &
import sys, socket, time
from sl import *
s = connect()
s.sendall(frame(NODE_REGISTER, {"node": "node01", "cpus": 16,
                                "mem_mib": 64000, "gres": "gpu:4",
                                "jobs": []}))
print("register", recv_frame(s)[3])
s.sendall(frame(JOB_END, {"node": "node04", "job_id": int(sys.argv[1]),
                          "exit_code": 0}, seq=2))
print("end", recv_frame(s)[3])
s.settimeout(0.3)
end = time.time() + 4
while time.time() < end:
    try:
        t, f, seq, b = recv_frame(s)
    except socket.timeout:
        continue
    except EOFError:
        break
    if t == JOB_LAUNCH:
        print("LAUNCH", b["job"].get("job_id"))
PY
)
sleep 1
prod=$(as_user "$GOOD" sbatch --parsable -p prod -t 1 --export=SECRET=s3 \
    --wrap 'echo trading')
wait
like "$(echo "$out" | grep '^register')" "denied|only from uid 0" \
    "an Operator's NODE_REGISTER is refused"
like "$(echo "$out" | grep '^end')" "denied|only from uid 0" \
    "an Operator's JOB_END is refused"
is "$(echo "$out" | grep -c LAUNCH)" 0 "no LAUNCH reaches the Operator"
is "$(job_state "$victim")" RUNNING "the victim's job still runs"
wait_for 10 job_ended "$prod"
is "$(job_state "$prod")" COMPLETED "the prod job ran on the real node01"
still_serving "after an Operator posed as a node"

# Root may speak for nodes, but one connection for one node only.
out=$(PYTHONPATH="$WORK" SOCK="$SOCK" "$ADV_PY" - <<'PY'
from sl import *
reg = lambda n: {"node": n, "cpus": 16, "mem_mib": 64000, "gres": "gpu:4",
                 "jobs": []}
def ask(s, t, body, seq):
    s.sendall(frame(t, body, seq=seq))
    b = recv_frame(s)[3]
    if b.get("accepted") is False:
        return b["reason"]
    return b.get("accepted", b.get("error", {}).get("message", b))
a = connect()
print("first", ask(a, NODE_REGISTER, reg("node02"), 1))
print("second", ask(a, NODE_REGISTER, reg("node03"), 2))
print("end_other", ask(a, JOB_END, {"node": "node03", "job_id": 999999,
                                    "exit_code": 0}, 3))
b = connect()
print("rebind", ask(b, NODE_REGISTER, reg("node02"), 1))
print("old_hb", ask(a, NODE_HEARTBEAT, {"node": "node02", "jobs": []}, 4))
print("new_hb", ask(b, NODE_HEARTBEAT, {"node": "node02", "jobs": []}, 2))
a.close()
b.close()
PY
)
is "$(echo "$out" | sed -n 's/^first //p')" True "root registers node02"
like "$(echo "$out" | grep '^second')" "connection is node node02's" \
    "a second node on the same connection is refused"
like "$(echo "$out" | grep '^end_other')" "connection is node node02's" \
    "a JOB_END for another node on that connection is refused"
is "$(echo "$out" | sed -n 's/^rebind //p')" True \
    "node02 re-registers on a new connection"
like "$(echo "$out" | grep '^old_hb')" "not registered on this connection" \
    "the old connection no longer speaks for node02"
is "$(echo "$out" | sed -n 's/^new_hb //p')" "{}" \
    "the new connection does"
# node03 must not hold a dangling connection: a job there starts once the
# real sluiced answers (the freed connection would be used otherwise).
j=$(sbatch --parsable -p backtest -w node03 -t 1 --wrap true)
wait_for 15 job_ended "$j"
is "$(job_state "$j")" COMPLETED "a job on node03 runs after the refusal"
still_serving "after two registrations on one connection"
# under make SAN=1 (SLUICE_BUILD=build-san): no use-after-free report
cluster_gone
finish
