#!/usr/bin/env bash
# Suspend and resume (docs/preemption.md): scontrol suspend/resume of a
# CPU job whose counter stops advancing while SUSPENDED and goes on after
# the resume, refused to a user who is no operator; the SUSPENDED state
# kept across a kill -9 of the controller; PreemptMode=SUSPEND,GANG: a
# high job suspends a low CPU job, runs, ends, and the victim resumes by
# itself and completes; a GPU victim is requeued instead (no
# suspend_gpu_jobs); with PreemptParameters=suspend_gpu_jobs a suspended
# GPU job keeps its GPUs and a job that needs them waits, saying why;
# without a cgroup freezer the node stops the job with SIGSTOP and the
# job's CONT trap sees the resume.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/suspend.conf"

state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }
# count FILE: the lines a counter wrote (a frozen write counts not)
count() { if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi; }
above() { [ "$(count "$1")" -gt "$2" ]; }
# counter FILE: a loop that adds a line to FILE every 0.1 s until FILE.stop
counter() {
    echo "while [ ! -e $1.stop ]; do echo x >>$1; sleep 0.1; done"
}
reason_of() { scontrol show job "$1" | tr ' ' '\n' | grep '^Reason='; }

# --- scontrol suspend / resume ---------------------------------------------
j1=$(submit -p low -J c1 -c 4 -o c1.out --wrap "$(counter c1.n)")
wait_for 15 is_state "$j1" RUNNING && wait_for 10 above c1.n 2
is "$(state_of "$j1")" RUNNING "a CPU job runs and counts"

chmod 755 "$DIR" "$WORK"
out=$(cd / && runuser -u nobody -- env SLUICE_CONF="$SLUICE_CONF" \
    "$E2E_BIN/scontrol" suspend "$j1" 2>&1)
like "$out" "Suspend of job $j1 failed: Access/permission denied" \
    "a user who is no operator may not suspend"
is "$(state_of "$j1")" RUNNING "the job is left running"

scontrol suspend "$j1"
is "$(state_of "$j1")" SUSPENDED "scontrol suspend: SUSPENDED"
sleep 0.5
n1=$(count c1.n)
sleep 1.5
is "$(count c1.n)" "$n1" "its counter does not advance while suspended"
is "$(squeue -h -j "$j1" -o %t) $(reason_of "$j1")" "S Reason=JobSuspended" \
    "squeue shows S, scontrol Reason=JobSuspended"
like "$(squeue -h -o '%i %t' | tr '\n' ' ')" "(^| )$j1 S " \
    "plain squeue lists the suspended job (Slurm's default states include S)"
is "$(squeue -h -t S -o %i | tr '\n' ' ')" "$j1 " "squeue -t S lists it alone"

# --- SUSPENDED survives a kill -9 of the controller ------------------------
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err"
wait_for 15 is_state "$j1" SUSPENDED
is "$(state_of "$j1")" SUSPENDED "after kill -9 and a restart it is still SUSPENDED"
sleep 1
is "$(count c1.n)" "$n1" "and still does not count"

scontrol resume "$j1"
wait_for 10 is_state "$j1" RUNNING
is "$(state_of "$j1")" RUNNING "scontrol resume: RUNNING"
wait_for 10 above c1.n "$n1"
ok "its counter advances again after the resume ($n1 -> $(count c1.n))"
like "$(sluice acct --events "$j1" | awk 'NR > 1 {print $2}' | tr '\n' ' ')" \
    ' start suspend resume $' \
    "sacct --events shows the suspend and the resume"
touch c1.n.stop
wait_for 15 is_state "$j1" COMPLETED
is "$(state_of "$j1")" COMPLETED "the resumed job completes"
like "$(sacct -n -P -j "$j1" -o Suspended | head -1)" '^00:00:(0[3-9]|[1-5][0-9])$' \
    "sacct's Suspended field shows the seconds it spent suspended"

# --- preemption by suspension, automatic resume -----------------------------
lo=$(submit -p low -J lo -c 4 -o lo.out --wrap "$(counter lo.n)")
wait_for 15 is_state "$lo" RUNNING && wait_for 10 above lo.n 2
hi=$(submit -p high -J hi -c 4 -o hi.out --wrap 'sleep 3')
wait_for 15 is_state "$hi" RUNNING
is "$(state_of "$hi") $(state_of "$lo")" "RUNNING SUSPENDED" \
    "the high job runs and the low job is suspended for it"
like "$(scontrol show job "$lo")" "Reason=Preempted_by_job_$hi" \
    "the victim's reason names its preemptor"
n2=$(count lo.n)
sleep 1
is "$(count lo.n)" "$n2" "the suspended victim does not count"
wait_for 20 is_state "$lo" RUNNING
is "$(state_of "$hi") $(state_of "$lo")" "COMPLETED RUNNING" \
    "when the high job ends the victim resumes by itself"
wait_for 10 above lo.n "$n2"
touch lo.n.stop
wait_for 15 is_state "$lo" COMPLETED
is "$(state_of "$lo")" COMPLETED "and completes"

# --- a GPU victim is requeued, not suspended --------------------------------
g=$(submit -p low -J g -c 1 --gpus-per-node=2 -o g.out --wrap 'sleep 60')
wait_for 15 is_state "$g" RUNNING
h2=$(submit -p high -J h2 -c 1 --gpus-per-node=1 -o h2.out --wrap 'sleep 1')
wait_for 20 is_state "$h2" RUNNING
is "$(state_of "$h2")" RUNNING "a high job needing a GPU runs"
like "$(scontrol show job "$g")" 'Restarts=1' \
    "the GPU victim was requeued (Restarts=1), not suspended"
is "$(sluice acct --events "$g" | awk 'NR > 1 {print $2}' | grep -c suspend)" \
    0 "it was never suspended"
scancel "$g"
wait_for 15 is_state "$g" CANCELLED

# --- suspend_gpu_jobs: the GPUs stay held -----------------------------------
# the controller alone is restarted with PreemptParameters=suspend_gpu_jobs
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
echo "PreemptParameters=suspend_gpu_jobs" >>"$DIR/sluice.conf"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up3.err"
g=$(submit -p low -J g -c 2 --gpus-per-node=2 -o g.out --wrap "$(counter g.n)")
wait_for 15 is_state "$g" RUNNING
h1=$(submit -p high -J h1 -c 3 -o h1.out --wrap 'while [ ! -e h1.stop ]; do sleep 0.1; done')
wait_for 15 is_state "$h1" RUNNING
is "$(state_of "$h1") $(state_of "$g")" "RUNNING SUSPENDED" \
    "with suspend_gpu_jobs a GPU job is suspended for a CPU job"
h2=$(submit -p high -J h2 -c 1 --gpus-per-node=1 -o h2.out --wrap 'true')
sleep 2
is "$(state_of "$h2")" PENDING "a job needing its GPUs does not start on them"
like "$(squeue -h -j "$h2" -o %R)" "GPUs held by suspended job $g" \
    "and its reason says the GPUs are held by the suspended job"
touch h1.stop
wait_for 20 is_state "$g" RUNNING
is "$(state_of "$g")" RUNNING "the GPU job resumes when the CPU job ends"
touch g.n.stop
wait_for 20 is_state "$h2" COMPLETED
is "$(state_of "$h2")" COMPLETED "the GPU job ends and the waiting job runs"


# --- without a freezer: SIGSTOP and SIGCONT ---------------------------------
node_pid=$(cat "$DIR/pids/node01.pid")
kill "$node_pid"
wait_for 10 eval "! alive $node_pid"
echo "CgroupPlugin=disabled" >"$DIR/cgroup.conf"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up4.err"
s1=$(submit -p low -J s1 -c 1 -o s1.out \
    --wrap "trap 'echo cont >>s1.sig' CONT; $(counter s1.n)")
wait_for 15 is_state "$s1" RUNNING && wait_for 10 above s1.n 2
scontrol suspend "$s1"
sleep 0.5
n3=$(count s1.n)
sleep 1
is "$(count s1.n)" "$n3" "without a cgroup (SIGSTOP) the job stops counting"
scontrol resume "$s1"
wait_for 10 above s1.n "$n3"
ok "and counts again after the resume"
wait_for 10 test -s s1.sig
is "$(cat s1.sig 2>&1)" cont "the job's CONT trap sees the resume"
like "$(grep -h "job=$s1 suspended" "$DIR"/log/node01.log)" 'by=signal' \
    "the node stopped it with signals"
touch s1.n.stop
wait_for 15 is_state "$s1" COMPLETED

cluster_gone
finish
