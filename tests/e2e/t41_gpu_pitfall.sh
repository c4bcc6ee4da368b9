#!/usr/bin/env bash
# The seed's first pitfall: node04 is configured Gres=gpu:4 but its node
# daemon finds no GPUs (its gres.conf declares none).  The node must go
# INVALID with the reason, sinfo -R and scontrol show node must say so, and
# a GPU job for its partition must say which node and why, not a bare
# "Resources"; once node04 finds its GPUs again, the job runs.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# node04's daemon restarts with a gres.conf that declares no GPUs for it
restart_node04() {
    local pid
    pid=$(cat "$DIR/pids/node04.pid")
    kill "$pid"
    wait_for 10 eval "! alive $pid"
    sluice up --dir "$DIR" "$@" >/dev/null 2>"$DIR/up-node04.err" ||
        sed 's/^/#   /' "$DIR/up-node04.err"
}
restart_node04 --no-gpus=node04
is "$(grep -c '^NodeName=node04' "$DIR/gres.conf")" 0 \
    "sluice up --no-gpus leaves node04 out of gres.conf"
wait_for 10 test "$(sinfo -h -N -n node04 -o %t)" = inval
is "$(sinfo -h -N -o '%N %t' | tr '\n' ' ')" \
    "node01 idle node02 idle node03 idle node04 inval " \
    "node04 is INVALID, the others idle"
reason_re='gres/gpu count reported 0 < configured 4 \(.+\)'
like "$(scontrol show node node04)" "State=INVALID" "scontrol show node: State=INVALID"
like "$(scontrol show node node04)" "Reason=$reason_re" \
    "scontrol show node gives the reason with its cause"
like "$(sinfo -R -h -o '%E|%N')" "^$reason_re\|node04$" \
    "sinfo -R lists node04 with the reason"
like "$(sinfo -R -h)" "^gres/gpu count repor.* node04$" \
    "sinfo -R's default columns show it too"

# a GPU job for dev (node04 only) says which node and why
id=$(submit -p dev --gres=gpu:1 --wrap 'echo $SLURM_JOB_GPUS')
wait_for 5 test "$(squeue -h -j "$id" -o %r)" != None
is "$(squeue -h -j "$id" -o '%T %R')" \
    "PENDING (ReqNodeNotAvail, UnavailableNodes:node04)" \
    "squeue names the unavailable node"
like "$(scontrol show job "$id")" \
    "Reason=ReqNodeNotAvail,_UnavailableNodes:node04;_node04_INVALID:_gres/gpu_count_reported_0_<_configured_4_\(.+\)" \
    "scontrol show job gives the node and the cause (blanks as _, as Slurm)"
like "$(squeue --json -j "$id" | tr -d '\n')" \
    '"state_description": "ReqNodeNotAvail, UnavailableNodes:node04; node04 INVALID: gres/gpu count reported 0 < configured 4' \
    "squeue --json has it as state_description"
# other partitions are not affected
other=$(submit -p backtest --gres=gpu:2 --wrap true)
wait_for 10 job_ended "$other"
is "$(job_state "$other")" COMPLETED "a GPU job in backtest runs meanwhile"

# the node finds its GPUs again: INVALID clears, the job runs
restart_node04 --no-gpus=
wait_for 10 job_ended "$id"
is "$(job_state "$id")" COMPLETED "the waiting job runs once node04 has its GPUs"
is "$(sinfo -h -N -n node04 -o %t)" idle "node04 is back in service"
is "$(sinfo -R -h | wc -l)" 0 "and sinfo -R lists nothing"
finish
