#!/usr/bin/env bash
# A node cut off from the network (its link down; netns.sh), SlurmdTimeout=8:
# - for less than SlurmdTimeout: its jobs keep running, one ends during the
#   cut and its end is recorded when the link returns, with the time it
#   ended; the node never goes DOWN and nothing runs twice;
# - for longer, back while its connection still stands, and back after it
#   gave the connection up: the node goes DOWN "Not responding", its jobs
#   end NODE_FAIL, those that may be requeued wait again, but not while
#   their old copy may still run on the lost node; once it is back the old
#   copies are killed, the node is up again and the requeued jobs run.
# The jobs' own records (runrec.sh: host, run, time every 0.2 s) prove that
# no two runs of a job ever overlapped.
. "$(dirname "$0")/netns.sh"

TIMEOUT=8
netns_start "node01 node02 node03" <<EOF
ClusterName=netns
SlurmdTimeout=$TIMEOUT
KillWait=2
NodeName=node[01-03] CPUs=2 RealMemory=2000
PartitionName=all Nodes=node[01-03] Default=YES MaxTime=INFINITE
EOF
netns_recorder

ended_record() { grep -q "^$1 .* end$" runs.txt; }
first_run_recording() { # the job's first run has a record in the last second
    local last
    last=$(netns_runs runs.txt | awk -v j="$1" '$1 == j' | sort -k4,4n |
        head -1 | cut -d' ' -f5)
    [ -n "$last" ] && awk -v t="$last" -v now="$(date +%s.%N)" \
        'BEGIN { exit !(now - t < 1) }'
}

# --- a short cut: nothing happens but a late end ---------------------------
a=$(submit -w node02 -o /dev/null runrec.sh)
b=$(submit -w node02 -o /dev/null runrec.sh)
wait_for 20 started "$a" && wait_for 20 started "$b"
netns_cut node02
t_cut=$(date +%s)
touch "stop-$b"
wait_for 10 ended_record "$b"
ok "job $b ends on node02 while its link is down"
is "$(job_state "$a") $(job_state "$b") $(node_state node02 | grep -c down)" \
    "RUNNING RUNNING 0" "the controller still has both running and node02 up"
# the cut lasts 3 s, well inside SlurmdTimeout
sleep $((3 - ($(date +%s) - t_cut)))
netns_mend node02
t_mend=$(date +%s)
wait_for 20 job_ended "$b"
is "$(job_state "$b")" COMPLETED "its end is recorded once the link is back"
end_b=$(date -d "$(sacct -n -X -P -j "$b" -o End)" +%s)
[ "$end_b" -le "$t_mend" ] && ok "with the time it ended ($end_b <= $t_mend)" ||
    not_ok "with the time it ended ($end_b > $t_mend)"
is "$(job_state "$a") $(node_state node02 | grep -c down)" "RUNNING 0" \
    "job $a runs on; node02 never went down"
touch "stop-$a"
wait_for 20 job_ended "$a"
is "$(job_state "$a")" COMPLETED "job $a completes"
is "$(runs_of "$a") $(runs_of "$b")" "1 1" "each ran once"
if grep -q 'node=node02 state=DOWN' "$DIR/log/sluicectld.log"; then
    not_ok "the controller never marked node02 DOWN"
else
    ok "the controller never marked node02 DOWN"
fi

# --- long cuts ----------------------------------------------------------------
# long_cut WHEN: node02 cut for longer than SlurmdTimeout, with job R (may
# be requeued; it could run on node01 or node03 the moment it is
# requeued) and N (--no-requeue) on it; WHEN it comes back: "down" (as
# soon as it is DOWN; its connection still stands) or "lost" (once its
# sluiced gave the connection up: it registers again).
long_cut() {
    local when=$1 r n t0 show
    # the others drained, so that both start on node02
    scontrol update NodeName=node01,node03 State=DRAIN Reason=placing
    r=$(submit -J "r-$when" -o /dev/null runrec.sh)
    n=$(submit -J "n-$when" --no-requeue -o /dev/null runrec.sh)
    wait_for 20 started "$r" && wait_for 20 started "$n"
    scontrol update NodeName=node01,node03 State=RESUME
    is "$(squeue -h -j "$r,$n" -o %N | sort -u)" node02 "$when: jobs $r and $n run on node02"
    t0=$(date +%s)
    netns_cut node02
    wait_for $((TIMEOUT + 10)) is_down node02
    echo "# $when: node02 DOWN $(($(date +%s) - t0)) s after its link went down"
    is "$(node_state node02)" "down*" "$when: node02 goes down (not responding)"
    like "$(sinfo -R -h -n node02)" '^Not responding ' "$when: sinfo -R: Not responding"
    wait_for 10 eval "[ \"\$(job_state $n)\" = NODE_FAIL ]"
    is "$(job_state "$n")" NODE_FAIL "$when: the --no-requeue job ends NODE_FAIL"
    wait_for 10 eval "[ \"\$(job_state $r)\" = PENDING ]"
    is "$(squeue -h -j "$r" -o '%T %r')" "PENDING NodeDown" \
        "$when: the other is requeued, waiting for node02 (NodeDown)"
    show=$(scontrol show job "$r")
    like "$show" "Reason=requeued_after_node02_failed;_waits_for_node02_to_confirm" \
        "$when: scontrol show job says why"
    like "$show" "Restarts=1" "$when: restart count 1"
    if recording "$r" && [ "$(runs_of "$r")" -eq 1 ]; then
        ok "$when: its old copy still runs on the lost node, and no new one"
    else
        not_ok "$when: its old copy still runs on the lost node, and no new one"
    fi
    if [ "$when" = lost ]; then
        wait_for 30 grep -q 'state=lost' "$DIR/log/node02.log"
        like "$(grep 'state=lost' "$DIR/log/node02.log" | tail -1)" "no word from the controller" \
            "lost: node02 gives its connection up"
    fi
    netns_mend node02
    wait_for 30 eval "! is_down node02"
    echo "# $when: node02 came back: $(grep -E 'node=node02 (responding again|registered)' \
        "$DIR/log/sluicectld.log" | tail -1 | grep -oE 'responding again|registered')"
    like "$(node_state node02)" '^(idle|mix|alloc)$' "$when: node02 is up again once its link is back"
    if wait_for 20 eval "! first_run_recording $r && ! recording $n"; then
        ok "$when: the old copies on node02 are killed"
    else
        not_ok "$when: the old copies on node02 are killed"
    fi
    wait_for 20 started "$r" 2
    is "$(job_state "$r") $(runs_of "$r")" "RUNNING 2" "$when: the requeued job runs again"
    is "$(job_state "$n")" NODE_FAIL "$when: the NODE_FAIL job stays so"
    touch "stop-$r"
    wait_for 20 job_ended "$r"
    is "$(job_state "$r")" COMPLETED "$when: and completes"
    is "$(sacct -n -P -D -X -j "$r" -o State | tr '\n' ' ')" "NODE_FAIL COMPLETED " \
        "$when: sacct -D: the run lost with the node, then the one that completed"
}
long_cut down
long_cut lost

is "$(netns_overlaps runs.txt)" "" "no two runs of a job ever overlapped"
netns_gone
finish
