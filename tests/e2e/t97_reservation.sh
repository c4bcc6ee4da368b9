#!/usr/bin/env bash
# Advance reservations, the maintenance-window story (docs/reservations.md):
# a MAINT reservation on node01 starting in 2 s keeps a 10-minute job off
# node01 (it runs elsewhere, or pends when it must have node01), the
# reservation's user runs inside it with --reservation, sinfo -T and
# scontrol show reservation show it, sinfo shows node01 "maint", busy nodes
# and overlaps are refused, non-operators are refused, the reservation
# survives a controller restart, delete removes it and an ended one goes.
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/tests/e2e/conf/four.conf"

is "$(scontrol show reservation)" "No reservations in the system" \
    "no reservation at first"
is "$(sinfo -T)" "$(printf '%-14s %8s %19s %19s %11s %s' RESV_NAME STATE \
    START_TIME END_TIME DURATION NODELIST)" "sinfo -T: the header alone"

# --- non-operators ------------------------------------------------------------
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null &&
    [ "$(id -u)" = 0 ]; then
    chmod 755 "$DIR"
    msg=$(runuser -u nobody -- env SLUICE_CONF="$SLUICE_CONF" \
        "$E2E_BIN/scontrol" create reservation StartTime=now Duration=10 \
        Nodes=node04 Users=nobody 2>&1)
    rc=$?
    like "$msg" 'Error creating the reservation: Access/permission denied' \
        "a non-operator may not create a reservation"
    is "$rc" 1 "... and scontrol exits 1"
    msg=$(runuser -u nobody -- env SLUICE_CONF="$SLUICE_CONF" \
        "$E2E_BIN/scontrol" show reservation 2>&1)
    is "$msg" "No reservations in the system" "anyone may look"
else
    ok "# SKIP non-operator checks need root, runuser and nobody"
    ok "# SKIP"
    ok "# SKIP"
fi

# --- the maintenance window ------------------------------------------------
is "$(scontrol create reservation ReservationName=maint StartTime=now+2 \
    Duration=10 Nodes=node01 Users=root Flags=MAINT)" \
    "Reservation created: maint" "scontrol create reservation"
pin=$(submit -t 10 -w node01 --wrap 'sleep 600')
inside=$(submit --reservation=maint -t 1 -o in.out \
    --wrap 'echo "resv=$SLURM_JOB_RESERVATION"; hostname')
is "$(squeue -h -j "$inside" -o '%T %r')" "PENDING Reservation" \
    "a job of the reservation pends (Reservation) until it begins"
free=$(submit -t 10 --wrap 'sleep 600')
wait_for 10 test "$(job_state "$free")" = RUNNING
is "$(squeue -h -j "$free" -o '%T')" "RUNNING" "a 10-minute job starts ..."
node=$(squeue -h -j "$free" -o '%N')
ok_cond=$([ -n "$node" ] && [ "$node" != node01 ] && echo y)
is "$ok_cond" y "... but not on node01, whose MAINT window begins in 2 s ($node)"
is "$(squeue -h -j "$pin" -o '%T %r')" \
    "PENDING ReqNodeNotAvail, Reserved for maintenance" \
    "a 10-minute job that must have node01 (-w) is held off it, with Slurm's reason"
like "$(sluice explain "$pin")" 'node01 +held by reservation maint' \
    "sluice explain names the reservation as the obstacle"
wait_for 15 job_ended "$inside"
is "$(squeue -h -t all -j "$inside" -o '%T %N')" "COMPLETED node01" \
    "the reservation's user runs inside it, on node01, once it began"
like "$(scontrol --json=sluice show job "$inside")" '"reservation": "maint"' \
    "its JOB object names the reservation"
is "$(sinfo -h -n node01 -o '%t')" "maint" "sinfo shows node01 maint"
like "$(scontrol show node node01)" 'State=(IDLE|MIXED|ALLOCATED)\+MAINT( |$)' \
    "scontrol show node: State=...+MAINT"

line=$(sinfo -h -T)
like "$line" '^maint +ACTIVE +[0-9T:-]+ +[0-9T:-]+ +00:10:00 node01$' \
    "sinfo -T: maint ACTIVE, its times, 00:10:00, node01"
show=$(scontrol show reservation maint)
like "$show" '^ReservationName=maint StartTime=[0-9T:-]+ EndTime=[0-9T:-]+ Duration=00:10:00
   Nodes=node01 NodeCnt=1 CoreCnt=16 Features=\(null\) PartitionName=\(null\) Flags=MAINT,SPEC_NODES
   TRES=cpu=16
   Users=root Groups=\(null\) Accounts=\(null\) Licenses=\(null\) State=ACTIVE BurstBuffer=\(null\) Watts=n/a
   MaxStartDelay=\(null\)$' "scontrol show reservation: Slurm's layout"
is "$(scontrol -o show reservation | wc -l)" 1 "-o: one line"
msg=$(scontrol show reservation nosuch 2>&1)
like "$msg" 'Reservation nosuch not found' "an unknown name is not found"

# --- refusals -------------------------------------------------------------
msg=$(scontrol create reservation StartTime=now Duration=5 Nodes=node01 \
    Users=root 2>&1)
like "$msg" 'Requested reservation overlaps with another reservation' \
    "a second reservation on node01 overlaps"
msg=$(scontrol create reservation StartTime=now Duration=5 Nodes="$node" \
    Users=root 2>&1)
like "$msg" 'Requested nodes are busy' \
    "a node whose job runs past the start is busy"
is "$(scontrol create reservation ReservationName=ij StartTime=now \
    Duration=5 Nodes="$node" Users=root Flags=IGNORE_JOBS)" \
    "Reservation created: ij" "... unless Flags=IGNORE_JOBS"
scontrol delete ReservationName=ij
other=$(scontrol create reservation StartTime=now+600 Duration=5 \
    NodeCnt=1 Users=nobody Flags=IGNORE_JOBS)
like "$other" '^Reservation created: nobody_[0-9]+$' \
    "an unnamed reservation is named USER_N"
oname=${other#Reservation created: }
msg=$(sbatch --reservation="$oname" --wrap true 2>&1)
like "$msg" 'Access denied to requested reservation' \
    "root is not among its users: refused at submit"
msg=$(sbatch --reservation=nosuch --wrap true 2>&1)
like "$msg" 'Requested reservation is invalid' "an unknown reservation is refused"
scontrol delete ReservationName="$oname"

# --- update, restart, delete, end ---------------------------------------------
is "$(scontrol update ReservationName=maint Duration=20)" \
    "Reservation updated." "scontrol update ReservationName= Duration="
kill -9 "$(cat "$DIR/pids/sluicectld.pid")"
sleep 0.5
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err"
like "$(scontrol show reservation maint)" 'Duration=00:20:00' \
    "the reservation, updated, survives a controller restart"
is "$(squeue -h -j "$pin" -o '%T')" "PENDING" "... and still holds node01"
scontrol delete ReservationName=maint
is "$(scontrol show reservation)" "No reservations in the system" \
    "scontrol delete removes it"
wait_for 10 test "$(job_state "$pin")" = RUNNING
is "$(squeue -h -j "$pin" -o '%T %N')" "RUNNING node01" \
    "the job held off node01 starts there once the reservation is gone"
msg=$(scontrol delete ReservationName=maint 2>&1)
like "$msg" 'Error deleting the reservation: Invalid reservation name' \
    "deleting it again: Invalid reservation name"
scontrol create reservation ReservationName=short StartTime=now \
    EndTime=now+3 Nodes=node04 Users=root Flags=IGNORE_JOBS >/dev/null
is "$(sinfo -h -T | awk '{print $1, $2}')" "short ACTIVE" "a short one is active"
wait_for 10 test "$(scontrol show reservation)" = \
    "No reservations in the system"
is "$(scontrol show reservation)" "No reservations in the system" \
    "it is removed at its end"

scancel "$pin" "$free"
cluster_gone
finish
