#!/usr/bin/env bash
# Suspend and resume reach a job's steps on every node: scontrol suspend
# of a 2-node job stops the srun step's task on the second node (which
# runs no batch script) as well as on the batch host; scontrol resume lets
# both go on, and the job completes.  Operators only: run as root.
. "$(dirname "$0")/lib.sh"

CONFDIR=$(mktemp -d /tmp/sluice-e2e-conf.XXXXXX)
cat >"$CONFDIR/steps.conf" <<'CONF'
ClusterName=steps
SlurmctldHost=master
SlurmdTimeout=30
KillWait=2
NodeName=node[01-02] CPUs=4 RealMemory=4000
PartitionName=dev Nodes=node[01-02] Default=YES MaxTime=1:00:00
CONF
cluster_start "$CONFDIR/steps.conf"
trap 'cluster_stop; rm -rf "$CONFDIR"' EXIT

# count FILE: the lines a counter wrote
count() { if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi; }
above() { [ "$(count "$1")" -gt "$2" ]; }

# one task per node, each adding a line to c.NODEID every 0.1 s
printf '%s\n' '#!/bin/bash' '#SBATCH -N 2' \
    'srun bash -c '\''while [ ! -e c.stop ]; do echo x >>c.$SLURM_NODEID; sleep 0.1; done'\''' \
    'echo "srun rc=$?"' >susp.sh
id=$(sbatch --parsable -o susp.out susp.sh)
wait_for 20 above c.1 2 && wait_for 5 above c.0 2
is "$(job_state "$id")" RUNNING "a 2-node job with an srun step runs"

scontrol suspend "$id"
is "$(job_state "$id")" SUSPENDED "scontrol suspend: SUSPENDED"
sleep 0.5
n0=$(count c.0) n1=$(count c.1)
sleep 1.5
is "$(count c.1)" "$n1" "the step's task on the second node stops counting"
is "$(count c.0)" "$n0" "and the one on the batch host too"

scontrol resume "$id"
wait_for 10 eval '[ "$(job_state "$id")" = RUNNING ]'
is "$(job_state "$id")" RUNNING "scontrol resume: RUNNING"
wait_for 10 above c.1 "$n1" && wait_for 5 above c.0 "$n0"
above c.1 "$n1" && ok "the step's task on the second node goes on" ||
    not_ok "the step's task on the second node goes on"
above c.0 "$n0" && ok "and the one on the batch host too" ||
    not_ok "and the one on the batch host too"

touch c.stop
wait_for 30 job_ended "$id"
is "$(job_state "$id")" COMPLETED "the job completes after the resume"
wait_for 10 grep -q 'srun rc=' susp.out
like "$(cat susp.out)" "srun rc=0" "its srun step ended well"

cluster_gone
finish
