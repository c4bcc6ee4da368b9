#!/usr/bin/env bash
# kill -9 the controller while 8 jobs run and 200 wait, and bring it back
# with `sluice up --dir`: no job is lost or run twice, ids stay, the
# running jobs finish and are recorded with their exit codes (those that
# ended while the controller was down as well as those still running when
# it came back), and the pending jobs run.
. "$(dirname "$0")/lib.sh"

NPEND=${T03_NPEND:-200}
CPUS=8 # four nodes of CPUs=2 in conf/eight.conf
cluster_start "$E2E_ROOT/tests/e2e/conf/eight.conf"

# Every job appends its id to ran.txt when it starts: an id there twice
# means a job ran twice.  Long jobs wait for a file ($2) and exit $1 - 1.
cat >long.sh <<'EOF'
#!/bin/bash
echo "$SLURM_JOB_ID" >>ran.txt
while [ ! -e "$2" ]; do sleep 0.1; done
echo "long $1 id $SLURM_JOB_ID"
exit $(($1 - 1))
EOF
cat >short.sh <<'EOF'
#!/bin/bash
echo "$SLURM_JOB_ID" >>ran.txt
echo "short $1 id $SLURM_JOB_ID"
exit $(($1 % 3))
EOF

# --- fill the cluster, then queue 200 behind it ---------------------------
: >long.ids
for i in 1 2 3 4 5 6 7 8; do
    gate=goA
    [ "$i" -gt 4 ] && gate=goB
    echo "$(submit -J long-$i -o out-%j.txt long.sh "$i" "$gate") $i" >>long.ids
done
running() { [ "$(squeue -h -t R -o %i | grep -c .)" -eq "$1" ]; }
wait_for 30 running $CPUS
is "$(squeue -h -t R -o %i | sort -n | tr '\n' ' ')" \
    "$(cut -d' ' -f1 long.ids | sort -n | tr '\n' ' ')" "the 8 long jobs run"
# (Under ASan, leak checks of 200 short sbatch runs would cost a minute;
# the other tests check sbatch for leaks.)
seq 1 "$NPEND" | ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 xargs -P 8 -I{} \
    sh -c 'echo "$(sbatch --parsable -J short-$1 -o out-%j.txt short.sh $1) $1"' \
    _ {} >short.ids 2>submit.err
is "$(grep -cE '^[0-9]+ [0-9]+$' short.ids) $(wc -c <submit.err)" "$NPEND 0" \
    "$NPEND more jobs submitted"
pending() { [ "$(squeue -h -t PD -o %i | grep -c .)" -eq "$1" ]; }
if wait_for 10 pending "$NPEND"; then
    ok "they are pending behind the running ones"
else
    not_ok "they are pending behind the running ones"
    squeue -h -o '%i %t %r' | head -5 | sed 's/^/#   /'
fi
starts=$(squeue -h -t R -o '%i %S' | sort -n)

# --- the crash, with a client submitting as it happens ----------------------
# Every job whose id sbatch printed must survive; the submission in flight
# when the controller dies may fail (or be accepted without its reply).
(
    k=1
    while id=$(sbatch --parsable -J race-$k -o out-%j.txt short.sh $k 2>/dev/null); do
        echo "$id $k"
        k=$((k + 1))
    done
) >race.ids &
race_pid=$!
wait_for 10 test -s race.ids
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
node_pids=$(cat "$DIR"/pids/node*.pid | tr '\n' ' ')
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
wait "$race_pid"
echo "# $(grep -c . race.ids) jobs accepted while submitting through the crash"
msg=$(squeue 2>&1) && not_ok "squeue fails without the controller" ||
    like "$msg" '^squeue: error: cannot reach sluicectld' \
        "squeue says the controller cannot be reached"

# Half the running jobs end while the controller is down: their ends wait
# in the spools.
touch goA
ended_in_spool() {
    local n=0 id
    for id in $(awk '$2 <= 4 {print $1}' long.ids); do
        compgen -G "$DIR/spool/node0?/job.$id/status" >/dev/null && n=$((n + 1))
    done
    [ "$n" -ge 4 ]
}
if wait_for 20 ended_in_spool; then
    ok "4 long jobs end while the controller is down (ends in the spools)"
else
    not_ok "4 long jobs end while the controller is down (ends in the spools)"
fi

# --- back up: only the controller is started again ------------------------
out=$(sluice up --dir "$DIR" 2>"$DIR/up2.err")
is "$out" "export SLUICE_CONF=$SLUICE_CONF" "sluice up --dir restarts the cluster"
like "$(cat "$DIR/up2.err")" 'started sluicectld' "it starts the controller"
is "$(cat "$DIR"/pids/node*.pid | tr '\n' ' ')" "$node_pids" \
    "and keeps the node daemons"
jobs=$(squeue -h -t all -o '%i %j' | sort -n)
want=$(awk '{print $1, "long-" $2}' long.ids
    awk '{print $1, "short-" $2}' short.ids
    awk '{print $1, "race-" $2}' race.ids)
missing=$(LC_ALL=C comm -13 <(echo "$jobs" | LC_ALL=C sort) <(echo "$want" | LC_ALL=C sort))
is "$missing" "" "every job whose id sbatch printed is there with that id and name"
extra=$(LC_ALL=C comm -23 <(echo "$jobs" | LC_ALL=C sort) <(echo "$want" | LC_ALL=C sort))
like "$extra" '^([0-9]+ race-[0-9]+)?$' \
    "no other job, but perhaps the one whose reply the crash cut off"
is "$(squeue -h -t all -o '%i %S' | sort -n | join - <(echo "$starts"))" \
    "$(echo "$starts" | awk '{print $1, $2, $2}')" \
    "the long jobs keep their start times"
maxid=$(echo "$jobs" | tail -1 | cut -d' ' -f1)

# The four jobs still running are re-adopted; never more than 8 run.
over=0
check_r() {
    local r
    r=$(squeue -h -t R -o %i | grep -c .)
    [ "$r" -gt "$CPUS" ] && over=$((over + 1))
    return 0
}
adopted() {
    check_r
    [ "$(squeue -h -t R -o %j | grep -c '^long-[5-8]$')" -eq 4 ]
}
if wait_for 30 adopted; then
    ok "the 4 long jobs still running are RUNNING again after the restart"
else
    not_ok "the 4 long jobs still running are RUNNING again after the restart"
    squeue -h -t all -o '%i %j %T %r' | grep long | sed 's/^/#   /'
fi
touch goB
all_done() { check_r; [ -z "$(squeue -h -o %i)" ]; }
if wait_for 120 all_done; then
    ok "all jobs end"
else
    not_ok "all jobs end ($(squeue -h -o %i | grep -c .) left)"
fi
is "$over" 0 "never more than $CPUS jobs running after the restart"

# --- each job ran once and ended as its script says ---------------------------
is "$(sort ran.txt | uniq -d | head -5 | tr '\n' ' ')" "" "no job ran twice"
is "$(sort -n ran.txt | tr '\n' ' ')" \
    "$(echo "$jobs" | cut -d' ' -f1 | tr '\n' ' ')" \
    "every job ran"
# One scontrol for all: "id name state exitcode"; what each should be
# follows from its name (long-I exits I-1, short-I and race-I exit I%3).
scontrol -o show job | awk '
    { id = ""; name = ""; st = ""; ec = ""
      for (k = 1; k <= NF; k++) {
          split($k, kv, "=")
          if (kv[1] == "JobId") id = kv[2]
          else if (kv[1] == "JobName") name = kv[2]
          else if (kv[1] == "JobState") st = kv[2]
          else if (kv[1] == "ExitCode") ec = substr($k, 10)
      }
      print id, name, st, ec }' | sort -n >all.txt
expect() { # expect PATTERN: the lines of all.txt whose name matches
    awk -v pat="$1" '$2 ~ pat {
        split($2, n, "-")
        code = (n[1] == "long") ? n[2] - 1 : n[2] % 3
        print $1, $2, (code == 0 ? "COMPLETED" : "FAILED"), code ":0" }' all.txt
}
is "$(grep ' long-' all.txt)" "$(expect '^long-')" \
    "the 8 long jobs are recorded with their exit codes (0..7)"
is "$(diff <(grep -E ' (short|race)-' all.txt) <(expect '^(short|race)-') | head -5)" "" \
    "the $NPEND pending jobs (and those submitted through the crash) ran and are recorded with their exit codes"
awk '{ split($2, n, "-"); kind = (n[1] == "long") ? "long" : "short"
       print "out-" $1 ".txt: " kind " " n[2] " id " $1 }' all.txt |
    LC_ALL=C sort >want-out.txt
awk '{ print FILENAME ": " $0 }' out-*.txt | LC_ALL=C sort >got-out.txt
is "$(diff want-out.txt got-out.txt | head -5)" "" \
    "every job's output file holds its line"
id=$(submit --wrap true)
like "$id" '^[0-9]+$' "a new job is accepted after the restart"
[ "$id" -gt "$maxid" ] && ok "with a new id ($id > $maxid)" ||
    not_ok "with a new id ($id > $maxid)"
cluster_gone
finish
