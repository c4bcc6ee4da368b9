#!/usr/bin/env bash
# 500 batch jobs on a four-node, 64-CPU cluster, through sbatch, squeue and
# scontrol as a user would: every job ends with its own exit code and
# output, jobs spread over all nodes, and squeue shows pending and running
# jobs correctly while the queue drains (never more running than CPUs; a
# pending job always says why).
. "$(dirname "$0")/lib.sh"

NJOBS=${T02_NJOBS:-500}
CPUS=64 # four nodes of CPUs=16 in conf/four.conf
cluster_start "$E2E_ROOT/tests/e2e/conf/four.conf"

# The first 64 jobs wait on a FIFO until the test opens it (blocked in
# open(2), so they cost no CPU): the rest must queue behind them.
mkfifo gate
cat >job.sh <<'EOF'
#!/bin/bash
: <gate
echo "job $1 id $SLURM_JOB_ID node $SLURMD_NODENAME"
sleep 0.$((RANDOM % 3))
exit $(($1 % 7 == 0 ? 3 : 0))
EOF

# elapsed T0 T1: seconds from T0 to T1, one decimal.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# sample LABEL: one squeue; complain when more jobs run than there are
# CPUs, or when a job submitted more than 5 s ago is still pending without
# a reason (a job just submitted shows "None" until the next scheduling
# pass, as in Slurm).  Sets R and PD.
BAD_SAMPLES=0
sample() {
    local out now stuck="" id t
    out=$(squeue -h -o '%i %t %r %V') || {
        BAD_SAMPLES=$((BAD_SAMPLES + 1))
        echo "# $1: squeue failed"
        return
    }
    now=$(date +%s)
    R=$(printf '%s\n' "$out" | awk '$2 == "R"' | grep -c .)
    PD=$(printf '%s\n' "$out" | awk '$2 == "PD"' | grep -c .)
    while read -r id t; do
        [ $((now - $(date -d "$t" +%s))) -gt 5 ] && stuck="$stuck $id"
    done < <(printf '%s\n' "$out" |
        awk '$2 == "PD" && ($3 == "" || $3 == "None") { print $1, $4 }')
    if [ "$R" -gt "$CPUS" ] || [ -n "$stuck" ]; then
        BAD_SAMPLES=$((BAD_SAMPLES + 1))
        echo "# $1: R=$R PD=$PD; pending without a reason after 5 s:$stuck"
    fi
}

# --- submit with eight concurrent sbatch processes, sampling squeue --------
# (Under ASan, leak checks of 500 short sbatch runs would cost a minute;
# the other tests check sbatch for leaks.)
t0=$(date +%s.%N)
seq 1 "$NJOBS" | ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 xargs -P 8 -I{} \
    sbatch --parsable -J t02-{} -o out-%j.txt job.sh {} >ids.txt 2>submit.err &
xargs_pid=$!
nsamples=0
while alive "$xargs_pid"; do
    sample "during submission"
    nsamples=$((nsamples + 1))
    sleep 0.5
done
wait "$xargs_pid"
rc=$?
t1=$(date +%s.%N)
is "$rc $(grep -c '^[0-9][0-9]*$' ids.txt) $(wc -c <submit.err)" "0 $NJOBS 0" \
    "$NJOBS concurrent sbatch calls each print a job id"
sed 's/^/#   /' submit.err | head -5
echo "# submitted $NJOBS jobs in $(elapsed $t0 $t1) s ($nsamples squeue samples)"

# --- the cluster is full: 64 running, the rest pending with a reason ------
full() { sample "filling"; [ "$R" -eq "$CPUS" ] && [ "$PD" -eq $((NJOBS - CPUS)) ]; }
if wait_for 60 full; then
    ok "squeue: $CPUS jobs running (one per CPU), $((NJOBS - CPUS)) pending"
else
    not_ok "squeue: $CPUS jobs running (one per CPU), $((NJOBS - CPUS)) pending"
    echo "#   R=$R PD=$PD"
fi
reasons=$(squeue -h -t PD -o %r | sort | uniq -c | awk '{print $2}' | tr '\n' ' ')
like "$reasons" '^(Priority |Resources )+$' \
    "pending jobs wait for Resources or Priority (got: $reasons)"
is "$(squeue -h -t R -o %N | sort -u | tr '\n' ' ')" "node01 node02 node03 node04 " \
    "the running jobs fill all four nodes"
is "$(sinfo -h -o '%D %t')" "4 alloc" "sinfo: all four nodes allocated"

# --- open the gate and watch the queue drain --------------------------------
exec 3<>gate
both=0
drained() {
    sample "draining"
    nsamples=$((nsamples + 1))
    [ "$R" -gt 0 ] && [ "$PD" -gt 0 ] && both=$((both + 1))
    [ "$R" -eq 0 ] && [ "$PD" -eq 0 ]
}
if wait_for 120 drained; then
    ok "the queue drains"
else
    not_ok "the queue drains (R=$R PD=$PD left)"
fi
t2=$(date +%s.%N)
exec 3>&-
echo "# ran $NJOBS jobs in $(elapsed $t1 $t2) s after the gate opened"
is "$BAD_SAMPLES" 0 \
    "$nsamples squeue samples: never more than $CPUS running, every pending job has a reason"
if [ "$both" -gt 0 ]; then
    ok "squeue showed pending and running jobs together while draining ($both samples)"
else
    not_ok "squeue showed pending and running jobs together while draining"
fi

# --- every job: state, exit code, node, output -------------------------------
# One line per job from scontrol -o: "id i state exitcode nodelist".
scontrol -o show job | awk '
    { id = ""; name = ""; st = ""; ec = ""; nl = ""
      for (k = 1; k <= NF; k++) {
          split($k, kv, "=")
          if (kv[1] == "JobId") id = kv[2]
          else if (kv[1] == "JobName") name = kv[2]
          else if (kv[1] == "JobState") st = kv[2]
          else if (kv[1] == "ExitCode") ec = substr($k, 10)
          else if (kv[1] == "NodeList") nl = kv[2]
      }
      if (name ~ /^t02-/) print id, substr(name, 5), st, ec, nl }' >jobs.txt
is "$(wc -l <jobs.txt)" "$NJOBS" "scontrol show job lists all $NJOBS jobs"
is "$(cut -d' ' -f1 jobs.txt | sort -u | tr '\n' ' ')" \
    "$(sort -u ids.txt | tr '\n' ' ')" "with the ids sbatch printed"
# Expected: i % 7 == 0 exits 3 (FAILED, ExitCode=3:0), the rest COMPLETED.
wrong=$(awk '{ want = ($2 % 7 == 0) ? "FAILED 3:0" : "COMPLETED 0:0"
               if ($3 " " $4 != want) print }' jobs.txt | head -5)
is "$wrong" "" "each job ended with its exit code (FAILED 3:0 every 7th, else COMPLETED 0:0)"
nfailed=$(squeue -h -t FAILED -o %i | grep -c .)
is "$nfailed" "$((NJOBS / 7))" "squeue -t FAILED counts the jobs that exited 3"
awk '{ print "out-" $1 ".txt: job " $2 " id " $1 " node " $5 }' jobs.txt |
    LC_ALL=C sort >want-out.txt
awk '{ print FILENAME ": " $0 }' out-*.txt | LC_ALL=C sort >got-out.txt
is "$(diff want-out.txt got-out.txt | head -5)" "" \
    "every output file holds its job's line, with its id and node"
nodes=$(awk '{print $5}' jobs.txt | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
echo "# jobs per node: $nodes"
is "$(awk '{print $5}' jobs.txt | sort -u | tr '\n' ' ')" \
    "node01 node02 node03 node04 " "jobs ran on all four nodes"
echo "# total $(elapsed $t0 $t2) s for $NJOBS jobs"
cluster_gone
finish
