#!/usr/bin/env bash
# SlurmctldDebug and SlurmdDebug set the daemons' log levels as in Slurm:
# the controller at "error" writes no info lines, the node daemons at
# "debug" write each launch's stages, and scontrol reconfigure gives the
# controller its new level at once.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/loglevel.conf"
CTLD_LOG=$DIR/log/sluicectld.log

j=$(submit -o /dev/null --wrap true)
like "$j" '^[0-9]+$' "a job is accepted"
wait_for 20 job_ended "$j"
is "$(job_state "$j")" COMPLETED "it completes"
launched() { grep -h "job=$j launch_us total=" "$DIR"/log/node0[12].log; }
wait_for 5 launched
like "$(launched)" "job=$j launch_us total=[0-9]+ spool_fork=[0-9]+ .*job_exec=" \
    "SlurmdDebug=debug: sluiced logs the launch's stages (a debug line)"
like "$(grep -h 'sluiced debug:' "$DIR"/log/node0[12].log | wc -l)" '^[1-9]' \
    "and its debug lines are marked so"
is "$(grep -c ' info: ' "$CTLD_LOG")" 0 \
    "SlurmctldDebug=error: the controller writes no info line"

sed -i 's/^SlurmctldDebug=error$/SlurmctldDebug=debug/' "$SLUICE_CONF"
like "$(scontrol reconfigure 2>&1)" 'SlurmctldDebug changed: error -> debug' \
    "scontrol reconfigure names the new SlurmctldDebug"
k=$(submit -o /dev/null --wrap true)
wait_for 20 job_ended "$k"
like "$(grep -c "sluicectld info: job=$k .*state=" "$CTLD_LOG")" '^[1-9]' \
    "the controller logs at the new level at once: job $k's states (info)"
like "$(grep -c 'sluicectld debug:' "$CTLD_LOG")" '^[1-9]' \
    "and debug lines"

sed -i 's/^SlurmctldDebug=debug$/SlurmctldDebug=loud/' "$SLUICE_CONF"
like "$(scontrol reconfigure 2>&1)" \
    'SlurmctldDebug=loud: expected quiet, fatal, error, info, verbose, debug' \
    "a level Slurm does not have is refused with the ones it has"
finish
