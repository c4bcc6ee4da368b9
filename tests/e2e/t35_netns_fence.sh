#!/usr/bin/env bash
# What a lost run held stays held until its node says it is gone (the
# fence, docs/operations.md): a GPU job on a node whose link is cut for
# longer than SlurmdTimeout is requeued; another job that wants the same
# GPUs waits; when the link comes back the old copy is killed (it ignores
# SIGTERM, so it takes KillWait), and only after its node reported its end
# does anything start on those GPUs.  Found by the chaos run
# (bench/chaos.sh): the node came back "IDLE" and a pending job was
# started on the GPUs the old copy still used.
. "$(dirname "$0")/netns.sh"

netns_start "node01" "NodeName=node01 Name=gpu Count=2" <<'EOF'
ClusterName=fence
SlurmdTimeout=6
KillWait=2
JobRequeue=1
GresTypes=gpu
NodeName=node01 CPUs=4 RealMemory=4000 Gres=gpu:2
PartitionName=all Nodes=node01 Default=YES MaxTime=INFINITE
EOF

a=$(sbatch --parsable -o /dev/null --gres=gpu:2 --wrap 'trap "" TERM; sleep 60')
wait_for 10 eval '[ "$(squeue -h -j $a -o %T)" = RUNNING ]'
is "$(squeue -h -j "$a" -o %T)" RUNNING "job $a runs on node01's two GPUs"
netns_cut node01
wait_for 30 eval 'sinfo -h -n node01 -o %t | grep -q down'
like "$(sinfo -h -n node01 -o '%t %E')" '^down.* Not responding' \
    "node01 cut off: DOWN, Not responding"
b=$(sbatch --parsable -o /dev/null --gres=gpu:2 --wrap 'sleep 1')
wait_for 10 eval '[ "$(squeue -h -j $a -o %r)" = NodeDown ]'
is "$(squeue -h -j "$a" -o '%T %r')" "PENDING NodeDown" \
    "job $a requeued, fenced until node01 says its run is gone"
like "$(sinfo -h -n node01 -o %G)" 'gpu:2' "node01 still has its two GPUs configured"
netns_mend node01
wait_for 30 eval '[ "$(squeue -h -t all -j $a -o %T)" = RUNNING ]'
log=$DIR/log/node01.log
t_end=$(grep -E "job=$a state=ended" "$log" | head -1 | cut -d' ' -f1)
like "$t_end" '^[0-9T:.-]+$' "the old copy of job $a was killed when node01 came back ($t_end)"
is "$(squeue -h -t all -j "$a" -o '%T')" RUNNING \
    "job $a runs again (it is older than $b)"
scancel "$a"
wait_for 30 eval '[ "$(squeue -h -t all -j $b -o %T)" = COMPLETED ]'
is "$(squeue -h -t all -j "$b" -o %T)" COMPLETED "job $b ran after it"
first=$(grep -E "job=($a|$b) state=launching" "$log" | sed -n 2p | cut -d' ' -f1)
is "$(printf '%s\n%s\n' "$t_end" "$first" | sort | head -1)" "$t_end" \
    "nothing was launched on node01 before the old copy's end was reported"
like "$(grep -E "job=$a state=launching" "$log" | sed -n 2p)" 'gpu_idx=0,1' \
    "then job $a got GPUs 0,1 again"
netns_gone
finish
