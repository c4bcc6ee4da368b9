#!/usr/bin/env bash
# GET /metrics (docs/metrics.md) on a local cluster with running, pending
# (Resources, Priority, held, a held array, a dependency) and preempted
# jobs: the page is Prometheus's text format (parsed by prometheus_client's
# own parser), and what it says agrees with sinfo and squeue taken at the
# same moment (node states, CPUs and GPUs of each partition, jobs by
# partition and state, pending jobs by reason), with what the test did
# (submissions, starts, SUBMIT requests) and with the controller's own
# preemption line (one preemption, its GPU-seconds); histograms are
# cumulative.  Then SluiceMetricsAuth=token: 401 without a token, 200 with
# one from scontrol token.  Nothing of the cluster is left, and no
# sanitizer report.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
command -v curl >/dev/null || skip_all "curl is not installed"
$PY -c 'import prometheus_client' 2>/dev/null ||
    skip_all "$PY has no prometheus_client (scripts/deps.sh installs python3-prometheus-client)"

cluster_start "$E2E_ROOT/tests/e2e/conf/metrics.conf"
ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
URL=http://$ADDR/metrics

cat >victim.sh <<'EOF'
#!/bin/sh
trap 'exit 0' TERM
while :; do sleep 0.2; done
EOF
chmod +x victim.sh
is_state() { [ "$(job_state "$1")" = "$2" ]; }

# --- running and pending jobs ----------------------------------------------
t_sub=$(date +%s)
v1=$(submit -p dev -J v1 --gpus-per-node=2 -o /dev/null victim.sh)
v2=$(submit -p dev -J v2 --gpus-per-node=2 -o /dev/null victim.sh)
b1=$(submit -p backtest -J b1 -c 4 --gpus-per-node=1 -o /dev/null victim.sh)
wait_for 15 eval "is_state $v1 RUNNING && is_state $v2 RUNNING && is_state $b1 RUNNING"
t_run=$(date +%s)
is "$(job_state "$v1") $(job_state "$v2") $(job_state "$b1")" \
    "RUNNING RUNNING RUNNING" "two dev jobs hold node01's GPUs, one backtest job runs"
d4=$(submit -p dev -J d4 --gpus-per-node=4 -o /dev/null victim.sh)
submit -p backtest -H -J held --wrap true >/dev/null
submit -p backtest -H -J arr --array=1-3 --wrap true >/dev/null
submit -p backtest -J dep --dependency=afterok:"$d4" --wrap true >/dev/null

# --- a preemption -----------------------------------------------------------
sleep 3 # the victims' work, lost when one of them is preempted
t_pre=$(date +%s)
p1=$(submit -p prod -J p1 --gpus-per-node=2 -o /dev/null victim.sh)
wait_for 20 eval "is_state $p1 RUNNING && grep -q 'requeued' '$DIR/log/sluicectld.log'"
t_post=$(date +%s)
line=$(grep -E "job=$p1 preempts jobs=[0-9]+ " "$DIR/log/sluicectld.log" | head -1)
like "$line" "lost_gpu_s=[0-9]+" "the prod job preempted one dev job (the controller's log line)"
victim=$(printf '%s\n' "$line" | sed -E 's/.*preempts jobs=([0-9]+) .*/\1/')
lost=$(printf '%s\n' "$line" | sed -E 's/.*lost_gpu_s=([0-9]+).*/\1/')
wait_for 10 is_state "$victim" PENDING
is "$(job_state "$victim")" PENDING "the victim is requeued"

# --- one scrape, with squeue and sinfo unchanged around it -----------------
# snap: squeue and sinfo before and after the scrape; the same twice, or
# the scrape is taken again.
snap() {
    squeue -h -r -o '%i|%P|%T|%r' | sort >q.before
    sinfo -h -N -o '%N|%T' | sort -u >n.before
    sinfo -h -o '%P|%C' >c.before
    sinfo -h -N -O 'PartitionName:20,NodeList:20,GresUsed:40' >g.before
    curl -s -D headers.txt -o metrics.txt "$URL" || return 1
    squeue -h -r -o '%i|%P|%T|%r' | sort >q.txt
    sinfo -h -N -o '%N|%T' | sort -u >n.txt
    sinfo -h -o '%P|%C' >c.txt
    sinfo -h -N -O 'PartitionName:20,NodeList:20,GresUsed:40' >g.txt
    cmp -s q.before q.txt && cmp -s n.before n.txt && cmp -s c.before c.txt &&
        cmp -s g.before g.txt
}
wait_for 10 snap
like "$(tr -d '\r' <headers.txt)" '^HTTP/1.1 200' "GET /metrics answers 200 without a token (SluiceMetricsAuth=none)"
like "$(tr -d '\r' <headers.txt | grep -i '^content-type:')" \
    'text/plain; version=0\.0\.4' "its Content-Type is the text format 0.0.4"

# What the test did: 8 sbatch (the array once), starts: v1, v2, b1, p1.
export WANT_SUBMITTED="backtest=4 dev=3 prod=1"
export WANT_STARTED="backtest=1 dev=2 prod=1"
export WANT_SUBMIT_RPCS=8 WANT_LOST=$lost
export LOST_MIN=$((2 * (t_pre - t_run - 1))) LOST_MAX=$((2 * (t_post - t_sub + 1)))
# the checks, one "name<TAB>got<TAB>want" line each
$PY - >checks.txt 2>py.err <<'EOF'
import collections, os, re
from prometheus_client.parser import text_string_to_metric_families

fams = {f.name: f for f in text_string_to_metric_families(open("metrics.txt").read())}
def samples(fam, suffix=""):
    return [s for s in fams[fam].samples if s.name == fam + suffix]
def by(fam, *keys, suffix="", skip_zero=True):
    out = {}
    for s in samples(fam, suffix):
        if skip_zero and s.value == 0:
            continue
        k = tuple(s.labels[k] for k in keys)
        out[k] = out.get(k, 0) + s.value
    return out
def show(d):
    return " ".join("%s=%g" % ("/".join(k) if isinstance(k, tuple) else k, v)
                    for k, v in sorted(d.items()))
def check(name, got, want):
    print("%s\t%s\t%s" % (name, got, want))
def lines(path):
    return [l.rstrip("\n") for l in open(path) if l.strip()]

# node states (sinfo's long names; drained is our drain)
sinfo_state = {"drained": "drain"}
nodes = {}
for l in lines("n.txt"):
    n, st = l.split("|")
    nodes[(n,)] = sinfo_state.get(st.rstrip("*~#$@"), st.rstrip("*~#$@"))
got = {(k[0],): k[1] for k, v in by("sluice_node_state", "node", "state").items()}
check("each node's state is sinfo's", show({k + (v,): 1 for k, v in got.items()}),
      show({k + (v,): 1 for k, v in nodes.items()}))
check("nodes by state count sinfo's nodes", show(by("sluice_nodes", "state")),
      show(collections.Counter((v,) for v in nodes.values())))

# CPUs of each partition: sinfo's A/I/O/T
cpus = collections.defaultdict(lambda: [0, 0, 0, 0])
for l in lines("c.txt"):
    p, aiot = l.split("|")
    for i, x in enumerate(aiot.split("/")):
        cpus[p.rstrip("*")][i] += int(x)
for i, (fam, what) in enumerate([("sluice_partition_cpus_allocated", "allocated"),
                                 ("sluice_partition_cpus_idle", "idle")]):
    check("CPUs %s per partition are sinfo's" % what,
          show(by(fam, "partition", skip_zero=False)),
          show({(p,): v[i] for p, v in cpus.items()}))
check("CPUs per partition are sinfo's total",
      show(by("sluice_partition_cpus", "partition", skip_zero=False)),
      show({(p,): v[3] for p, v in cpus.items()}))

# GPUs allocated per partition and per node: sinfo's GresUsed
gpus, node_gpus = collections.Counter(), {}
for l in lines("g.txt"):
    p, n, used = l.split()[:3]
    m = re.match(r"gpu(?::[^:(]+)?:(\d+)\(", used)
    k = int(m.group(1)) if m else 0
    gpus[(p.rstrip("*"),)] += k
    node_gpus[(n,)] = k
check("GPUs allocated per partition are sinfo's GresUsed",
      show(by("sluice_partition_gpus_allocated", "partition", skip_zero=False)),
      show(gpus))
check("GPUs allocated per node are sinfo's GresUsed",
      show(by("sluice_node_gpus_allocated", "node", skip_zero=False)),
      show(node_gpus))

# jobs by partition and state, pending ones by reason: squeue -r's
jobs, reasons = collections.Counter(), collections.Counter()
for l in lines("q.txt"):
    _, p, st, r = l.split("|", 3)
    jobs[(p, st.lower())] += 1
    if st == "PENDING":
        reasons[(p, re.match(r"\w*", r).group(0) or "None")] += 1
check("jobs by partition and state are squeue -r's",
      show(by("sluice_jobs", "partition", "state")), show(jobs))
check("pending jobs by reason are squeue -r's",
      show(by("sluice_jobs_pending", "partition", "reason")), show(reasons))
check("the reasons include Resources, Priority, JobHeldUser, Dependency",
      " ".join(sorted({k[1] for k in by("sluice_jobs_pending", "partition", "reason")})),
      "Dependency JobHeldUser Priority Resources")

# counters against what the test did
def want(env):
    return show({(kv.split("=")[0],): int(kv.split("=")[1]) for kv in os.environ[env].split()})
check("submissions per partition (an array once)",
      show(by("sluice_jobs_submitted", "partition", suffix="_total")), want("WANT_SUBMITTED"))
check("starts per partition", show(by("sluice_jobs_started", "partition", suffix="_total")),
      want("WANT_STARTED"))
check("SUBMIT requests", "%g" % by("sluice_rpc_requests", "type", suffix="_total").get(("SUBMIT",), 0),
      os.environ["WANT_SUBMIT_RPCS"])
check("one preemption, of a dev job, requeued",
      show(by("sluice_preemptions", "partition", "mode", suffix="_total")), "dev/requeue=1")
lost = sum(s.value for s in samples("sluice_preemption_lost_gpu_seconds", "_total"))
check("its lost GPU-seconds are the controller's lost_gpu_s", "%g" % lost, os.environ["WANT_LOST"])
check("and 2 GPUs times its run time (between %s and %s)" % (os.environ["LOST_MIN"], os.environ["LOST_MAX"]),
      int(os.environ["LOST_MIN"]) <= lost <= int(os.environ["LOST_MAX"]), True)

# histograms: cumulative buckets, +Inf equal to _count
bad = []
for f in fams.values():
    if f.type != "histogram":
        continue
    series = collections.defaultdict(list)
    counts = {}
    for s in f.samples:
        key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        if s.name.endswith("_bucket"):
            series[key].append((float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            counts[key] = s.value
    for key, b in series.items():
        vals = [v for _, v in sorted(b)]
        if vals != sorted(vals) or sorted(b)[-1][0] != float("inf") or vals[-1] != counts.get(key):
            bad.append(f.name + str(key))
check("histograms: buckets cumulative, +Inf is _count", " ".join(bad), "")
check("commits and passes were measured",
      samples("sluice_db_commit_duration_seconds", "_count")[0].value > 0 and
      samples("sluice_sched_pass_duration_seconds", "_count")[0].value > 0, True)
check("node daemons' connections",
      "%g" % by("sluice_ctld_open_connections", "kind").get(("node",), 0), "2")
check("the controller's resident memory is reported",
      samples("sluice_ctld_resident_memory_bytes")[0].value > 1 << 20, True)
EOF
if [ -s checks.txt ]; then
    while IFS=$'\t' read -r name got want; do
        is "$got" "$want" "$name"
    done <checks.txt
else
    not_ok "the page parses and the checks run"
    sed 's/^/#   /' py.err
fi

# --- SluiceMetricsAuth=token -------------------------------------------------
echo "SluiceMetricsAuth=token" >>"$SLUICE_CONF"
like "$(scontrol reconfigure 2>&1)" "SluiceMetricsAuth" "scontrol reconfigure takes SluiceMetricsAuth=token"
code() { curl -s -o /dev/null -w '%{http_code}' "$@" "$URL"; }
wait_for 10 eval '[ "$(code)" = 401 ]'
is "$(code)" 401 "without a token: 401"
tok=$(scontrol token | sed -n 's/^SLURM_JWT=//p')
is "$(code -H "Authorization: Bearer $tok")" 200 "with scontrol token's token (Authorization: Bearer): 200"
is "$(code -H "X-SLURM-USER-TOKEN: $tok")" 200 "with it in X-SLURM-USER-TOKEN: 200"
is "$(code -H "Authorization: Bearer ${tok%?}x")" 401 "with a forged token: 401"
like "$(curl -s -H "Authorization: Bearer $tok" "$URL")" \
    'sluice_http_requests_total\{code="401"\} [1-9]' "the refusals are counted by status"
cluster_gone
finish
