#!/usr/bin/env bash
# SlurmctldDebug and SlurmdDebug set the daemons' log levels as in Slurm:
# the controller at "error" writes no info lines, the node daemons at
# "debug" write each launch's stages, and scontrol reconfigure gives the
# controller its new level at once.  scontrol setdebug changes the
# controller's level until the next reconfigure, which undoes it.
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
sed -i 's/^SlurmctldDebug=loud$/SlurmctldDebug=error/' "$SLUICE_CONF"
like "$(scontrol reconfigure 2>&1)" 'SlurmctldDebug changed: debug -> error' \
    "the file back at error"

# --- scontrol setdebug ------------------------------------------------------
ctld_level() { scontrol show config | awk '$1 == "SlurmctldDebug" { print $3 }'; }
# job_info_lines ID: the controller's info lines of the job's states
job_info_lines() { grep -c "sluicectld info: job=$1 .*state=" "$CTLD_LOG"; }
out=$(scontrol setdebug debug2 2>&1)
is "$?:$out" "0:" "scontrol setdebug debug2 succeeds, silently as Slurm's"
is "$(ctld_level)" debug2 "show config shows setdebug's level"
is "$(grep -c 'setdebug uid=0: SlurmctldDebug error -> debug2' "$CTLD_LOG")" 1 \
    "the controller logs the change and who made it"
m=$(submit -o /dev/null --wrap true)
wait_for 20 job_ended "$m"
like "$(job_info_lines "$m")" '^[1-9]' \
    "the new level is in force at once: job $m's states (info)"
out=$(scontrol setdebug 2 2>&1)
is "$?:$out" "0:" "scontrol setdebug 2 (Slurm's number for error)"
is "$(ctld_level)" error "show config shows error"
p=$(submit -o /dev/null --wrap true)
wait_for 20 job_ended "$p"
is "$(job_info_lines "$p")" 0 "at error: no info line for job $p"
out=$(scontrol setdebug loud 2>&1)
is "$?" 1 "setdebug loud fails"
like "$out" "setdebug: invalid debug level 'loud': expected quiet, fatal, error, info" \
    "naming the levels there are"
out=$(scontrol setdebug 2>&1)
is "$?" 2 "setdebug without a level is a usage error"
scontrol setdebug debug
is "$(ctld_level)" debug "setdebug debug"
like "$(scontrol reconfigure 2>&1)" \
    "SlurmctldDebug: scontrol setdebug's debug undone, back to error" \
    "reconfigure undoes setdebug and says so"
is "$(ctld_level)" error "show config shows the file's level again"
q=$(submit -o /dev/null --wrap true)
wait_for 20 job_ended "$q"
is "$(job_info_lines "$q")" 0 "the file's level is in force: no info line for job $q"
finish
