#!/usr/bin/env bash
# Job arrays and dependencies on a local cluster: an array 0-9%3 never
# runs more than 3 tasks at once and every task's %A_%a output holds its
# task id; squeue's compact 123_[3-9%3] and -r; cancel of one task, of a
# task range and of a whole array; an afterok chain runs in order;
# afternotok runs after a failure and can never run after a success;
# --kill-on-invalid-dep; singleton; and all of it survives a controller
# kill -9 and `sluice up --dir` (pending remainder, running tasks,
# waiting dependents).
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# A task that counts the tasks of its array running with it (marker files)
# and waits for a file before it ends.
cat >task.sh <<'EOF'
#!/bin/sh
me="run.$SLURM_ARRAY_JOB_ID.$SLURM_ARRAY_TASK_ID"
trap 'rm -f "$me"; exit 143' TERM
touch "$me"
n=$(ls run.$SLURM_ARRAY_JOB_ID.* 2>/dev/null | wc -l)
echo "task=$SLURM_ARRAY_TASK_ID running=$n count=$SLURM_ARRAY_TASK_COUNT min=$SLURM_ARRAY_TASK_MIN max=$SLURM_ARRAY_TASK_MAX step=$SLURM_ARRAY_TASK_STEP sluice=$SLUICE_ARRAY_TASK_ID"
while [ ! -e "go.$SLURM_ARRAY_JOB_ID" ]; do sleep 0.05; done
rm -f "$me"
EOF
chmod +x task.sh

running_of() { # ARRAY: its running tasks, "A_T" sorted
    squeue -h -t R -j "$1" -o %i | sort -t_ -k2n | tr '\n' ' '
}
count_running() { squeue -h -t R -j "$1" -o %i | wc -l; }
# wait_for takes a command: these look again each time.
running_is() { [ "$(count_running "$1")" = "$2" ]; }
shows() { # ID FORMAT WANT: squeue -t all -j ID -o FORMAT prints WANT
    [ "$(squeue -h -t all -j "$1" -o "$2")" = "$3" ]
}

# --- an array 0-9%3 ---------------------------------------------------------
a=$(submit -p dev -c 1 -t 5 --array=0-9%3 -o 'out_%A_%a' task.sh)
like "$a" '^[0-9]+$' "sbatch --array=0-9%3 is accepted"
wait_for 15 running_is "$a" 3
is "$(running_of "$a")" "${a}_0 ${a}_1 ${a}_2 " "the first three tasks run"
is "$(squeue -h -t PD -j "$a" -o '%i %r')" "${a}_[3-9%3] JobArrayTaskLimit" \
    "squeue shows the pending rest compactly, with the throttle and its reason"
is "$(squeue -h -r -t PD -j "$a" -o %i | tr '\n' ' ')" \
    "$(for t in 3 4 5 6 7 8 9; do printf '%s_%s ' "$a" "$t"; done)" \
    "squeue -r shows one line per pending task"
is "$(squeue -h -j "${a}_1" -o '%F %K %T')" "$a 1 RUNNING" \
    "%F and %K give the array job id and the task id"
like "$(scontrol show job "$a" | tr '\n' ' ')" "ArrayJobId=$a ArrayTaskId=3-9 ArrayTaskThrottle=3" \
    "scontrol show job shows the pending record's ArrayJobId and ArrayTaskId"

# cancel one pending task and one running task
scancel "${a}_9" "${a}_0"
wait_for 10 shows "${a}_0" %T CANCELLED
is "$(squeue -h -t all -j "${a}_9" -o '%i %T')" "${a}_9 CANCELLED" \
    "scancel A_9 cancels a single pending task"
wait_for 10 eval '[ "$(squeue -h -t PD -j "$a" -o %i)" = "${a}_[4-8%3]" ]'
is "$(squeue -h -t PD -j "$a" -o '%i')" "${a}_[4-8%3]" \
    "another task started in place of the cancelled running one; 9 is gone"

# --- a controller crash while the array runs -------------------------------
dep=$(submit -p dev -c 1 -t 5 -d "afterany:$a" -o dep.out --wrap 'echo after-array')
wait_for 10 shows "$dep" %r Dependency
before=$(squeue -h -t all -j "$a,$dep" -o '%i %T %r' | sort)
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err" || not_ok "sluice up --dir after kill -9"
wait_for 15 squeue -h -j "$a"
is "$(squeue -h -t all -j "$a,$dep" -o '%i %T %r' | sort)" "$before" \
    "after a controller kill -9: the same running tasks, pending rest and waiting dependent"

touch "go.$a"
wait_for 40 job_ended "$dep"
is "$(job_state "$dep")" COMPLETED "the afterany dependent ran once the array ended"
max=$(cat out_"$a"_* | sed -n 's/.*running=\([0-9]*\).*/\1/p' | sort -n | tail -1)
ok_if=$([ -n "$max" ] && [ "$max" -le 3 ] && echo y)
[ "$ok_if" = y ] && ok "never more than 3 tasks of 0-9%3 ran at once (at most $max)" ||
    not_ok "never more than 3 tasks of 0-9%3 ran at once (saw $max)"
files=$(ls out_"$a"_* | sort -t_ -k3n | tr '\n' ' ')
is "$files" "$(for t in 0 1 2 3 4 5 6 7 8; do printf 'out_%s_%s ' "$a" "$t"; done)" \
    "tasks 0-8 wrote out_%A_%a (9 was cancelled before it ran)"
bad=0
for t in 1 2 3 4 5 6 7 8; do
    grep -qx "task=$t running=[0-9]* count=10 min=0 max=9 step=1 sluice=$t" \
        "out_${a}_$t" || bad=$((bad + 1))
    [ "$(wc -l <"out_${a}_$t")" = 1 ] || bad=$((bad + 1))
done
is "$bad" 0 "each task's file has its own task id and the array's shape, once"

# --- cancel a range of tasks, then the whole array ---------------------------
b=$(submit -p dev -c 1 -t 5 --array=1,3,5-7 -o /dev/null task.sh)
wait_for 15 running_is "$b" 5
scancel "${b}_[3,5-6]"
wait_for 10 running_is "$b" 2
is "$(running_of "$b")" "${b}_1 ${b}_7 " "scancel A_[3,5-6] cancels those three tasks"
c=$(submit -p dev -c 16 -t 5 --array=0-4 -o /dev/null task.sh)
wait_for 10 shows "$c" '%i %T' "${c}_[0-4] PENDING"
cdep=$(submit -p backtest -t 5 -d afterany:$c --wrap true)
scancel "$b" "$c"
wait_for 10 eval "[ -z \"\$(squeue -h -j $b,$c)\" ]"
is "$(squeue -h -t all -j "$b,$c" -o %T | sort | uniq -c | awk '{print $1, $2}')" \
    "6 CANCELLED" "scancel A cancels the whole array, running tasks and pending rest"
wait_for 10 job_ended "$cdep"
is "$(job_state "$cdep")" COMPLETED "afterany on an array cancelled while pending runs"

# --- dependencies ---------------------------------------------------------
j1=$(submit -p backtest -t 5 --wrap 'sleep 0.3; echo 1 >>chain')
j2=$(submit -p backtest -t 5 -d afterok:$j1 --wrap 'echo 2 >>chain')
j3=$(submit -p backtest -t 5 --dependency=afterok:$j2 --wrap 'echo 3 >>chain')
is "$(squeue -h -j "$j3" -o '%r %E')" "Dependency afterok:$j2(unfulfilled)" \
    "a waiting job shows reason Dependency and its expression"
wait_for 20 job_ended "$j3"
is "$(tr '\n' ' ' <chain)" "1 2 3 " "an afterok chain runs in order"

fail=$(submit -p backtest -t 5 --wrap 'exit 3')
good=$(submit -p backtest -t 5 --wrap 'true')
nok=$(submit -p backtest -t 5 -d afternotok:$fail --wrap true)
never=$(submit -p backtest -t 5 -d afternotok:$good --wrap true)
kill=$(submit -p backtest -t 5 -d afterok:$fail --kill-on-invalid-dep=yes --wrap true)
wait_for 20 job_ended "$nok"
is "$(job_state "$nok")" COMPLETED "afternotok after a failing job runs"
wait_for 10 shows "$never" %r DependencyNeverSatisfied
is "$(squeue -h -j "$never" -o '%T %r')" "PENDING DependencyNeverSatisfied" \
    "afternotok after a successful job can never run"
wait_for 10 job_ended "$kill"
is "$(job_state "$kill")" CANCELLED "--kill-on-invalid-dep=yes cancels it instead"
scontrol update JobId="$never" Dependency=afterok:$good
wait_for 20 job_ended "$never"
is "$(job_state "$never")" COMPLETED "scontrol update Dependency= lets it run"

out=$(sbatch -d afterok:999999 --wrap true 2>&1)
like "$out" "Job dependency problem" "an unknown job id in --dependency is refused"
out=$(sbatch --array=0-5000 --wrap true 2>&1)
like "$out" "MaxArraySize" "an array beyond MaxArraySize is refused, naming it"

# singleton: one job of a name and user at a time
cat >single.sh <<'EOF'
#!/bin/sh
[ -e single.lock ] && echo overlap >>single.log
touch single.lock
echo "start $SLURM_JOB_ID" >>single.log
while [ ! -e single.go ]; do sleep 0.05; done
rm -f single.lock
EOF
chmod +x single.sh
s1=$(submit -p backtest -t 5 -J solo -d singleton single.sh)
s2=$(submit -p backtest -t 5 -J solo -d singleton single.sh)
wait_for 10 shows "$s1" %T RUNNING
is "$(squeue -h -j "$s2" -o '%T %r')" "PENDING Dependency" \
    "a singleton waits while its namesake runs"
touch single.go
wait_for 20 job_ended "$s2"
is "$(cut -d' ' -f1 single.log | tr '\n' ' ')" "start start " \
    "the two singletons ran one after the other"

cluster_gone
finish
