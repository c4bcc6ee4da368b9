#!/usr/bin/env bash
# A chaos run on a cluster of separate machines (tests/e2e/netns.sh: the
# controller, a login host and four GPU nodes, each in namespaces of its
# own), then the invariant checker (bench/chaos_check.py).  For DURATION
# seconds a random mix of work and faults:
#   work    batch jobs (backtest, dev, GPUs or not), arrays, prod jobs that
#           preempt dev, cancels, holds and releases;
#   faults  a node's link cut shorter and longer than SlurmdTimeout, kill
#           -9 of the controller or of a node daemon (started again after a
#           moment), a node rebooted (every process and its spool gone).
# At the end every link is mended and every daemon runs, the queue drains,
# and the checker reads accounting and the node daemons' records: every
# accepted job has one final state, no job ran twice at once, no GPU
# served two jobs at once, requeue counts match the events, and the
# controller's memory and descriptors are those of a quiet controller
# holding the same jobs (the same state, loaded by a clean restart).
#
#   bench/chaos.sh [-d SECONDS] [-s SEED] [-k]   # default 600 s; -k keeps DIR
#   bench/chaos.sh --planted                       # SLUICE_TEST_DOUBLE_START:
#                                                  # the checker must fail
#
# Needs root (namespaces), /usr/bin/python3.  Results: bench/RESULTS.md.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=600
SEED=$(((RANDOM << 15) | RANDOM))
PLANTED=0
while [ $# -gt 0 ]; do
    case $1 in
    -d) DURATION=$2; shift ;;
    -s) SEED=$2; shift ;;
    -k) export E2E_KEEP=1 ;;
    --planted) PLANTED=1 ;;
    *) echo "usage: bench/chaos.sh [-d SECONDS] [-s SEED] [-k] [--planted]" >&2
       exit 2 ;;
    esac
    shift
done
RANDOM=$SEED
# the harness lives with the e2e tests; its TAP lines say what it checks
export E2E_ROOT=$ROOT
. "$ROOT/tests/e2e/netns.sh"

NODES="node01 node02 node03 node04"
TIMEOUT=12 # SlurmdTimeout: cuts of 4 s stay under it, of 20 s do not
[ "$PLANTED" = 1 ] && export SLUICE_TEST_DOUBLE_START=5
netns_start "$NODES" "NodeName=node[01-04] Name=gpu Count=4" <<EOF
ClusterName=chaos
SlurmdTimeout=$TIMEOUT
KillWait=2
JobRequeue=1
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PreemptExemptTime=00:00:00
NodeName=node[01-04] CPUs=8 RealMemory=8000 Gres=gpu:4
PartitionName=prod Nodes=node[01,04] MaxTime=INFINITE PriorityTier=100
PartitionName=backtest Nodes=node[02-03] Default=YES MaxTime=INFINITE PriorityTier=50
PartitionName=dev Nodes=node[01-04] MaxTime=INFINITE PriorityTier=10
EOF
unset SLUICE_TEST_DOUBLE_START
OUT=$DIR/chaos
mkdir -p "$OUT/nodes"
: >"$OUT/accepted"
: >"$OUT/faults"
echo "# chaos: seed $SEED, $DURATION s, nodes $NODES, SlurmdTimeout $TIMEOUT s"
echo "# command: bench/chaos.sh -d $DURATION -s $SEED$([ "$PLANTED" = 1 ] && echo ' --planted')"

footprint() { # "rss_kb fds" of the controller
    local pid
    pid=$(netns_daemon_pid ctld)
    echo "$(awk '/VmRSS/ {print $2}' "/proc/$pid/status") $(ls "/proc/$pid/fd" | wc -l)"
}

declare -A count
fault() { # KIND NODE: recorded for the checker and the counts
    echo "$(date +%s.%N) $1 $2" >>"$OUT/faults"
    count[$1]=$((${count[$1]:-0} + 1))
}
pick() { local a=($1); echo "${a[$((RANDOM % ${#a[@]}))]}"; }
submit() { # sbatch ARGS...: the id, recorded as accepted
    local id
    id=$(sbatch --parsable -o /dev/null "$@" 2>/dev/null) || return 0
    echo "$id" >>"$OUT/accepted"
    count[jobs]=$((${count[jobs]:-0} + 1))
    echo "$id"
}
submit_array() { # N ARGS...
    local n=$1 id
    shift
    id=$(sbatch --parsable -o /dev/null --array=0-$((n - 1)) "$@" 2>/dev/null) ||
        return 0
    echo "$id $n" >>"$OUT/accepted"
    count[arrays]=$((${count[arrays]:-0} + 1))
}
random_job() { # one of the last 50 recorded jobs (not arrays)
    local ids
    ids=$(awk 'NF == 1' "$OUT/accepted" | tail -n 50)
    [ -n "$ids" ] && pick "$ids"
}

cuts=() # "node mend_at" of links cut now
down=() # "node up_at what" of daemons or machines down now
busy() { # NODE: whether a fault is on NODE now
    printf '%s\n' "${cuts[@]}" "${down[@]}" | grep -q "^$1 "
}
heal() { # mend what is due (all with "all")
    local now c keep=() h
    now=$(date +%s)
    for c in "${cuts[@]}"; do
        set -- $c
        if [ "${2}" -le "$now" ] || [ "${HEAL_ALL:-0}" = 1 ]; then
            netns_mend "$1"
        else
            keep+=("$c")
        fi
    done
    cuts=("${keep[@]}")
    keep=()
    for c in "${down[@]}"; do
        set -- $c
        if [ "$2" -le "$now" ] || [ "${HEAL_ALL:-0}" = 1 ]; then
            [ "$3" = reboot ] && netns_boot "$1"
            netns_daemon_start "$1" || echo "# $1: daemon did not start"
        else
            keep+=("$c")
        fi
    done
    down=("${keep[@]}")
}

end=$(($(date +%s) + DURATION))
next_fault=$(($(date +%s) + 5))
while [ "$(date +%s)" -lt "$end" ]; do
    heal
    case $((RANDOM % 10)) in
    0 | 1 | 2) submit -p backtest -c $((1 + RANDOM % 4)) --wrap "sleep $((1 + RANDOM % 8))" >/dev/null ;;
    3 | 4) submit -p dev --gres=gpu:$((1 + RANDOM % 2)) --requeue --wrap "sleep $((2 + RANDOM % 10))" >/dev/null ;;
    5) submit -p prod --gres=gpu:$((1 + RANDOM % 4)) --wrap "sleep $((1 + RANDOM % 4))" >/dev/null ;;
    6) submit_array $((2 + RANDOM % 12)) -p "$(pick 'backtest dev')" --wrap "sleep $((RANDOM % 3))" ;;
    7) j=$(random_job) && [ -n "$j" ] && scancel "$j" 2>/dev/null && count[cancels]=$((${count[cancels]:-0} + 1)) ;;
    8) j=$(submit -p backtest -H --wrap 'sleep 1') && sleep 0.$((RANDOM % 10)) &&
        scontrol release "$j" 2>/dev/null && count[holds]=$((${count[holds]:-0} + 1)) ;;
    9) sleep 0.3 ;;
    esac
    if [ "$(date +%s)" -ge "$next_fault" ]; then
        n=$(pick "$NODES")
        case $((RANDOM % 6)) in
        0) busy "$n" || { netns_cut "$n"; fault cut_short "$n"; cuts+=("$n $(($(date +%s) + 4))"); } ;;
        1) busy "$n" || { netns_cut "$n"; fault cut_long "$n"; cuts+=("$n $(($(date +%s) + TIMEOUT + 8))"); } ;;
        2) busy "$n" || { netns_daemon_stop "$n" KILL; fault kill_node "$n"; down+=("$n $(($(date +%s) + 1 + RANDOM % 3)) daemon"); } ;;
        3) busy ctld || { netns_daemon_stop ctld KILL; fault kill_ctld ctld; down+=("ctld $(($(date +%s) + 1 + RANDOM % 3)) daemon"); } ;;
        4) busy "$n" || { netns_poweroff "$n"; fault reboot "$n"; down+=("$n $(($(date +%s) + 3 + RANDOM % 5)) reboot"); } ;;
        5) ;;
        esac
        next_fault=$(($(date +%s) + 10 + RANDOM % 20))
    fi
    sleep 0.$((RANDOM % 5))
done

echo "# work over: mending every link, starting every daemon"
HEAL_ALL=1 heal
wait_for 60 netns_registered || echo "# not every node registered again"
for n in $NODES; do # a node a cut left DOWN is resumed, as an operator would
    case $(sinfo -h -n "$n" -o %t) in
    down* | drain*) scontrol update NodeName="$n" State=RESUME >/dev/null 2>&1 ;;
    esac
done
if wait_for 600 eval '[ -z "$(squeue -h -o %i)" ]'; then
    ok "the queue drained"
else
    not_ok "the queue drained ($(squeue -h -o '%i %T %r' | head -5 | tr '\n' ';'))"
fi
sleep 2
# the footprint after the faults, against a quiet controller holding the
# same jobs: the same state loaded by a clean restart
squeue >/dev/null
sacct -a -S @0 >/dev/null
after=$(footprint)
netns_daemon_stop ctld
netns_daemon_start ctld
wait_for 60 netns_registered
squeue >/dev/null
sacct -a -S @0 >/dev/null
sleep 2
footprint >"$OUT/ctld"
echo "$after" >>"$OUT/ctld"
sacct -a -S @0 -X -P -n -o JobIDRaw,JobID,State,Restarts >"$OUT/sacct.txt"
sacct -a -S @0 --json=sluice >"$OUT/acct.json"
for n in $NODES; do cp "$DIR/log/$n.log" "$OUT/nodes/$n.log"; done

echo "# counts:"
for k in jobs arrays cancels holds cut_short cut_long kill_node kill_ctld reboot; do
    echo "#   $k ${count[$k]:-0}"
done
/usr/bin/python3 "$ROOT/bench/chaos_check.py" "$OUT" | sed 's/^/# /'
rc=${PIPESTATUS[0]}
if [ "$PLANTED" = 1 ]; then
    [ "$rc" -ne 0 ] && ok "the planted double start is caught" ||
        not_ok "the planted double start is caught"
else
    [ "$rc" -eq 0 ] && ok "no violation" || not_ok "no violation"
fi
netns_gone
finish
