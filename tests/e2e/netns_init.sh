#!/bin/bash
# netns_init.sh HOST DIR: process 1 of one machine of tests/e2e/netns.sh,
# started by netns_boot in the machine's network namespace and in new PID,
# mount and UTS namespaces.  It names the machine, gives it the cluster's
# /etc/hosts and a boot id of its own (bind mounts, private to this mount
# namespace), hides the controller's state directory from every machine
# but the controller's, says "ready" and then reaps what is orphaned on
# the machine (supervisors outlive their sluiced) until it is killed:
# killing it kills every process of the machine at once.
set -u
host=$1
dir=$2
hostname "$host" || exit 1
mount --bind "$dir/net/hosts" /etc/hosts || exit 1
mount --bind "$dir/hosts/$host/boot_id" /proc/sys/kernel/random/boot_id ||
    exit 1
if [ "$host" != ctld ]; then
    mount --bind "$dir/net/nostate" "$dir/state" || exit 1
fi
: >"$dir/hosts/$host/ready"
trap 'exit 0' TERM
while :; do
    sleep 3599 &
    wait $!
done
