#!/usr/bin/env bash
# What a Prometheus scrape of GET /metrics costs the controller with a
# full queue.  On a fresh local cluster (bench/cluster.conf: four 16-CPU
# 4-GPU nodes), sixteen one-GPU jobs take every GPU for two hours and
# QUEUE (default 10,000) jobs of varied shapes wait behind them
# (submit_bench --vary); once the scheduler is idle, SCRAPES (default 1,000)
# scrapes on one keep-alive connection, after 5 to warm up.  Reported:
#   latency        each scrape from request to the last byte (client side):
#                  median and p99;
#   ctld_cpu       the controller's CPU time (user+system, /proc/PID/stat)
#                  over the scrapes, per scrape, less its idle CPU over as
#                  long a time with no scrape;
#   build          the page's own sluice_metrics_scrape_duration_seconds
#                  (the time to write it, HTTP aside): median and p99.
# Not part of `make check`.
#
#   bench/metrics_bench.sh             (QUEUE=10000 SCRAPES=1000 by default)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLUICE_BUILD:-build}
BIN=$ROOT/$BUILD/bin
SB=$ROOT/$BUILD/bench/submit_bench
QUEUE=${QUEUE:-10000}
SCRAPES=${SCRAPES:-1000}
PY=/usr/bin/python3
BENCH_NAME=metrics_bench
BENCH_TMP=metricsbench
. "$ROOT/bench/lib.sh"

[ -x "$SB" ] || die "$SB missing: make first"
$PY -c 'import prometheus_client' 2>/dev/null ||
    die "$PY has no prometheus_client (scripts/deps.sh installs it)"
echo "# $(date -u) $(uname -n) nproc=$(nproc) load: $(cut -d' ' -f1-3 /proc/loadavg)"
cluster_up
PATH=$BIN:$PATH

for _ in $(seq 1 16); do
    sbatch --parsable -c 4 --gres=gpu:1 -t 120 -o /dev/null \
        --wrap 'sleep 7200' >/dev/null || die "sbatch (blocker) failed"
done
for _ in $(seq 1 100); do
    [ "$(squeue -h -t R -o %i | wc -l)" -ge 16 ] && break
    sleep 0.2
done
[ "$(squeue -h -t R -o %i | wc -l)" -ge 16 ] || die "the blockers did not start"
fill=$("$SB" -c 4 -n $((QUEUE / 4)) --vary) || die "fill failed"
echo "fill: $fill"

# idle: the passes that the submissions asked for are over when sdiag's
# count stands still for two seconds
passes() { sdiag --json | $PY -c 'import json,sys; d = json.load(sys.stdin); print(d.get("scheduler", d)["main"]["passes"])'; }
last=-1
for _ in $(seq 1 60); do
    now=$(passes)
    [ "$now" = "$last" ] && break
    last=$now
    sleep 2
done

ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
PID=$(cat "$DIR/pids/sluicectld.pid")
$PY - "$ADDR" "$PID" "$SCRAPES" <<'EOF'
import http.client, os, sys, time
from prometheus_client.parser import text_string_to_metric_families

addr, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tick = os.sysconf("SC_CLK_TCK")
def cpu_s():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick   # utime, stime
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p + 0.999) - 1)]
def med(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2

host, port = addr.rsplit(":", 1)
c = http.client.HTTPConnection(host, int(port))
def scrape():
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    assert r.status == 200, r.status
    return body.decode()
for _ in range(5):
    page = scrape()
lat, build = [], []
c0, w0 = cpu_s(), time.monotonic()
for _ in range(n):
    t = time.perf_counter()
    page = scrape()
    lat.append((time.perf_counter() - t) * 1e3)
    for line in page.splitlines()[::-1]:
        if line.startswith("sluice_metrics_scrape_duration_seconds "):
            build.append(float(line.split()[1]) * 1e3)
            break
c1, wall = cpu_s(), time.monotonic() - w0
time.sleep(wall)          # as long again, no scrape: the idle CPU
c2 = cpu_s()
jobs = sum(s.value for f in text_string_to_metric_families(page)
           if f.name == "sluice_jobs" for s in f.samples)
print("scrapes=%d jobs=%d page_bytes=%d series=%d" % (
    n, jobs, len(page), sum(1 for l in page.splitlines() if l and l[0] != "#")))
print("latency_ms: median %.2f p99 %.2f (min %.2f max %.2f)" % (
    med(lat), pct(lat, 0.99), min(lat), max(lat)))
print("build_ms (the page's own figure): median %.2f p99 %.2f" % (
    med(build), pct(build, 0.99)))
print("ctld_cpu_ms per scrape: %.2f (%.0f ms over %d scrapes in %.1f s, "
      "less %.0f ms idle in as long)" % (
    ((c1 - c0) - (c2 - c1)) * 1e3 / n, (c1 - c0) * 1e3, n, wall,
    (c2 - c1) * 1e3))
EOF
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
