#!/usr/bin/env bash
# netns_shell.sh [NODES]: a cluster of separate machines (netns.sh) for a
# developer's hands: a controller, a login host and NODES (default
# "node01 node02 node03", 4 CPUs and 2 count-only GPUs each, partitions
# dev and prod), then an interactive shell whose sbatch, squeue, ... run
# on the login host and where netns.sh's functions (netns_cut node02,
# netns_poweroff node02, netns_daemon_stop ctld KILL, ...) work.  Leaving
# the shell takes everything down.  As root:
#   sudo tests/e2e/netns_shell.sh
. "$(dirname "$0")/netns.sh"

nodes=${1:-node01 node02 node03}
list=$(echo "$nodes" | tr ' ' ',')
netns_start "$nodes" "NodeName=$list Name=gpu Count=2" <<EOF
ClusterName=netns
SlurmdTimeout=30
KillWait=5
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
NodeName=$list CPUs=4 RealMemory=4000 Gres=gpu:2
PartitionName=dev Nodes=$list Default=YES MaxTime=INFINITE PriorityTier=1
PartitionName=prod Nodes=$list MaxTime=INFINITE PriorityTier=10
EOF
cat >"$DIR/shell.rc" <<EOF
. '$E2E_ROOT/tests/e2e/netns.sh'
set +u
trap - EXIT
E2E_ROOT='$E2E_ROOT'
E2E_BIN='$E2E_BIN'
DIR='$DIR'
NETNS_TAG='$NETNS_TAG'
NETNS_NODES='$NETNS_NODES'
NETNS_HOSTS='$NETNS_HOSTS'
PATH='$PATH'
export SLUICE_CONF='$SLUICE_CONF'
PS1='netns:\\w\$ '
cd '$WORK'
EOF
echo "# the cluster's directory is $DIR; its logs are in $DIR/log"
echo "# try: sinfo; sbatch --wrap hostname; netns_cut node02; netns_mend node02"
bash --rcfile "$DIR/shell.rc" -i
