#!/usr/bin/env bash
# The everyday scenarios on a cluster of separate machines (netns.sh: the
# controller, a login host and three nodes, each in namespaces of its own
# with its own host name and address): the CLI on the login host reaches
# the controller over TCP with auth/key and a wrong key is refused; jobs
# run on the node they were given and see its host name; a job submits a
# job from its node; count-only GPUs give each job its own
# CUDA_VISIBLE_DEVICES; prod preempts dev; a 2-node step runs a task on
# each machine, from a batch job and from the login host.
. "$(dirname "$0")/netns.sh"

netns_start "node01 node02 node03" "NodeName=node[01-03] Name=gpu Count=2" <<'EOF'
ClusterName=netns
SlurmdTimeout=30
KillWait=2
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
NodeName=node[01-03] CPUs=4 RealMemory=4000 Gres=gpu:2
PartitionName=dev Nodes=node[01-03] Default=YES MaxTime=INFINITE PriorityTier=1
PartitionName=prod Nodes=node[01-03] MaxTime=INFINITE PriorityTier=10
EOF

# --- the machines ----------------------------------------------------------
is "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" "node01 idle node02 idle node03 idle " \
    "three nodes registered, each from its own machine"
is "$(for h in ctld login node01 node02 node03; do netns_on "$h" hostname; done | tr '\n' ' ')" \
    "ctld login node01 node02 node03 " "each machine has its own host name"
is "$(netns_on node02 getent hosts ctld)" "10.213.0.2      ctld" \
    "names resolve through the machines' /etc/hosts"
is "$(netns_on login ls -A "$DIR/state")" "" \
    "the login host does not see the controller's state (so the CLI uses TCP)"
is "$(netns_on ctld test -S "$DIR/state/sluicectld.sock" && echo there)" there \
    "the controller's host does"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/wrong.key")
sed "s|^AuthInfo=.*|AuthInfo=$DIR/wrong.key|" "$SLUICE_CONF" >"$DIR/wrong.conf"
msg=$(SLUICE_CONF=$DIR/wrong.conf sinfo 2>&1) && not_ok "a wrong key is refused" ||
    like "$msg" "error" "a client with another key is refused"

# --- submission: each job on its node ---------------------------------------
cat >where.sh <<'EOF'
#!/bin/bash
echo "$(hostname) $SLURMD_NODENAME $SLURM_JOB_NODELIST"
EOF
ids=
for n in node01 node02 node03; do
    ids="$ids $(sbatch --parsable -w "$n" -o "where-$n.out" where.sh)"
done
for id in $ids; do wait_for 20 job_ended "$id"; done
is "$(cat where-node01.out where-node02.out where-node03.out | tr '\n' ' ')" \
    "node01 node01 node01 node02 node02 node02 node03 node03 node03 " \
    "each job ran on its node, whose host name is its NodeName"
is "$(for id in $ids; do job_state "$id"; done | tr '\n' ' ')" \
    "COMPLETED COMPLETED COMPLETED " "and completed"
inner=$(sbatch --parsable -w node03 -o inner.out \
    --wrap 'sbatch --parsable -w node01 -o inner2.out --wrap "hostname"')
wait_for 20 job_ended "$inner"
inner2=$(cat inner.out)
like "$inner2" '^[0-9]+$' "a job on node03 submits a job (over TCP, with the key)"
wait_for 20 job_ended "$inner2"
is "$(cat inner2.out 2>&1)" node01 "which runs on node01"

# --- GPUs: count-only, one CUDA_VISIBLE_DEVICES per job ---------------------
cat >gpu.sh <<'EOF'
#!/bin/bash
echo "$(hostname) $CUDA_VISIBLE_DEVICES" >"gpu-$SLURM_JOB_ID.out"
while [ ! -e stop-gpu ]; do sleep 0.1; done
EOF
g1=$(sbatch --parsable -w node02 --gpus-per-node=1 -o /dev/null gpu.sh)
g2=$(sbatch --parsable -w node02 --gpus-per-node=1 -o /dev/null gpu.sh)
g3=$(sbatch --parsable -w node02 --gpus-per-node=1 -o /dev/null gpu.sh)
wait_for 20 test -s "gpu-$g1.out" && wait_for 20 test -s "gpu-$g2.out"
is "$(cat "gpu-$g1.out" "gpu-$g2.out" | sort | tr '\n' ' ')" "node02 0 node02 1 " \
    "two 1-GPU jobs on node02 see GPU 0 and GPU 1"
is "$(job_state "$g3") $(squeue -h -j "$g3" -o %r)" "PENDING Resources" \
    "a third waits for a GPU"
touch stop-gpu
for id in "$g1" "$g2" "$g3"; do wait_for 20 job_ended "$id"; done
is "$(cat "gpu-$g3.out" 2>&1 | cut -d' ' -f1)" node02 "and runs once one is free"
g4=$(sbatch --parsable -w node01 --gpus-per-node=2 -o /dev/null gpu.sh)
wait_for 20 job_ended "$g4"
is "$(cat "gpu-$g4.out" 2>&1)" "node01 0,1" "a 2-GPU job sees both"

# --- preemption: prod over dev ------------------------------------------------
cat >dev.sh <<'EOF'
#!/bin/bash
echo "start $(hostname) restart=${SLURM_RESTART_COUNT:-0}" >>"dev-$SLURM_JOB_ID.log"
trap 'echo "term $(hostname)" >>"dev-$SLURM_JOB_ID.log"; exit 0' TERM
while [ ! -e stop-dev ]; do sleep 0.1; done
EOF
d1=$(sbatch --parsable -p dev -w node03 --gpus-per-node=1 -o /dev/null dev.sh)
d2=$(sbatch --parsable -p dev -w node03 --gpus-per-node=1 -o /dev/null dev.sh)
wait_for 20 eval "grep -q start dev-$d1.log && grep -q start dev-$d2.log"
p=$(sbatch --parsable -p prod -w node03 --gpus-per-node=2 -o prod.out \
    --wrap 'echo "$(hostname) $CUDA_VISIBLE_DEVICES"; while [ ! -e stop-prod ]; do sleep 0.1; done')
wait_for 30 eval "[ \"\$(job_state $p)\" = RUNNING ]"
is "$(job_state "$p")" RUNNING "the prod job runs on node03 ..."
is "$(grep -c term "dev-$d1.log" "dev-$d2.log" | tr '\n' ' ')" \
    "dev-$d1.log:1 dev-$d2.log:1 " "... after both dev jobs got SIGTERM"
is "$(job_state "$d1") $(job_state "$d2")" "PENDING PENDING" "they wait again (requeued)"
wait_for 10 test -s prod.out
is "$(cat prod.out)" "node03 0,1" "with both GPUs of node03"
touch stop-prod
wait_for 30 eval "grep -q restart=1 dev-$d1.log && grep -q restart=1 dev-$d2.log"
is "$(grep -c 'restart=1' "dev-$d1.log" "dev-$d2.log" | tr '\n' ' ')" \
    "dev-$d1.log:1 dev-$d2.log:1 " "and run again once prod is done"
touch stop-dev
wait_for 20 job_ended "$d1" && wait_for 20 job_ended "$d2"
like "$(sacct -n -P -D -j "$d1" -o State | tr '\n' ' ')" "PREEMPTED COMPLETED" \
    "sacct -D shows the preempted run and the last one"

# --- a step over two machines --------------------------------------------------
s=$(sbatch --parsable -N 2 -w node01,node02 -o step.out \
    --wrap 'srun -N 2 -n 2 -l bash -c "echo \$(hostname) \$SLURMD_NODENAME"')
wait_for 30 job_ended "$s"
is "$(job_state "$s")" COMPLETED "a 2-node job with a step completes"
is "$(sort step.out | tr '\n' ' ')" "0: node01 node01 1: node02 node02 " \
    "its step ran a task on each machine, each with its own host name"
out=$(srun -N 2 -n 2 -w node02,node03 -l hostname 2>&1 | sort | tr '\n' ' ')
is "$out" "0: node02 1: node03 " "srun from the login host runs a task on each of two machines"

netns_gone
finish
