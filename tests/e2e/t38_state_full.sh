#!/usr/bin/env bash
# The controller's StateSaveLocation on a 24 MiB tmpfs (issue 18,
# docs/operations.md): filled below SluiceStateMinFree (8 MiB) and then to
# its last byte, and later made read-only, the controller refuses
# submissions with a clear error (sbatch exits 1, the REST API answers
# 507) while squeue, sacct, scontrol ping and sdiag answer and say why;
# running jobs go on and end meanwhile, their ends kept by the node daemon
# and recorded once the directory takes writes again; everything resumes
# by itself, and nothing accepted is lost.  The read-only part mounts the
# directory read-only over itself (a bind mount, `mount -o remount,bind,ro`
# then `rw`): `mount -o remount,ro` of the tmpfs is refused (busy) while
# the controller holds its database open for writing, as on any file
# system.  Last, scontrol reconfigure lowers SluiceStateMinFree while
# changes are refused.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to mount a small filesystem"
need_daemons

DIR=$(mktemp -d /tmp/sluice-e2e.XXXXXX)
cleanup() {
    if [ -n "$DIR" ]; then
        sluice down --cancel --dir "$DIR" >/dev/null 2>&1
        cluster_kill_left
        # the read-only mount over the directory, if still there, then
        # the tmpfs
        while mountpoint -q "$DIR/state"; do
            umount "$DIR/state" || break
        done
    fi
    cluster_stop
}
trap cleanup EXIT
mkdir -p "$DIR/state" "$DIR/san"
mount -t tmpfs -o size=24m,mode=0700 tmpfs "$DIR/state" ||
    skip_all "cannot mount a tmpfs here"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$DIR/san/asan"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$DIR/san/ubsan"
if ! out=$(sluice up -f "$E2E_ROOT/tests/e2e/conf/state_full.conf" \
    --dir "$DIR" 2>"$DIR/up.err"); then
    not_ok "sluice up"
    sed 's/^/#   /' "$DIR/up.err"
    exit 1
fi
eval "$out"
export SLUICE_CONF
WORK=$DIR/work
mkdir -p "$WORK" && cd "$WORK" || exit 1
STATE=$DIR/state
LOG=$DIR/log/sluicectld.log
URL=http://$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
TOKEN=$(scontrol token lifespan=900 | sed -n 's/^SLURM_JWT=//p')

# Every job id sbatch printed (and the REST API's), to be found final in
# sacct at the end.
: >ids
sub() {
    local id
    id=$(sbatch --parsable -o out-%j.txt "$@") && echo "$id" >>ids
    echo "$id"
}
# rest_submit: POST job/submit; prints the HTTP status and the answer.
rest_submit() {
    curl -s -o rest.out -w '%{http_code}' -X POST \
        -H "X-SLURM-USER-TOKEN: $TOKEN" -H 'Content-Type: application/json' \
        --data-binary '{"script": "#!/bin/sh\ntrue\n", "job": {"name": "rest",
            "environment": {"PATH": "/usr/bin:/bin"},
            "current_working_directory": "'"$WORK"'"}}' \
        "$URL/slurm/v0.0.38/job/submit"
    echo " $(tr -d '\n' <rest.out)"
}
# ended_on_node ID: the node daemon has the job's exit status (its end is
# not necessarily recorded by the controller).
ended_on_node() {
    compgen -G "$DIR/spool/node0*/job.$1/status" >/dev/null
}
# refused TYPE: requests of TYPE the controller answered with an error.
refused() {
    curl -s "$URL/metrics" |
        sed -n 's/^sluice_rpc_errors_total{type="'"$1"'"} //p'
}
export -f refused
export URL
# refusals WANT_RE WHAT JOB: sbatch and REST refuse with the reason;
# scontrol ping and sdiag say it; squeue and sacct show running JOB.
refusals() {
    local out rc
    out=$(sbatch --parsable -o out-%j.txt --wrap true 2>&1)
    rc=$?
    is "$rc" 1 "$2: sbatch exits 1"
    like "$out" "^sbatch: error: Batch job submission failed: $1$" \
        "$2: sbatch prints why"
    if command -v curl >/dev/null; then
        like "$(rest_submit)" "^507 .*$1" \
            "$2: the REST API answers 507 with the reason"
    else
        ok "# SKIP curl is not installed"
    fi
    like "$(scontrol release "$held" 2>&1; echo "exit $?")" "$1
exit 1" "$2: other changes are refused too (scontrol release)"
    is "$(job_state "$held")" PENDING "$2: the held job stays held"
    like "$(scontrol ping)" "is UP
$1" "$2: scontrol ping says why"
    like "$(sdiag | grep -A1 'Takes changes')" "no" "$2: sdiag says so"
    is "$(squeue -h -j "$3" -o %T) $(sacct -n -X -P -j "$3" -o State)" \
        "RUNNING RUNNING" "$2: squeue and sacct answer"
}

cat >gate.sh <<'EOF'
#!/bin/bash
while [ ! -e "$1" ]; do sleep 0.1; done
echo "done $SLURM_JOB_ID"
EOF
j1=$(sub gate.sh go1) # ends while the directory is full
j2=$(sub gate.sh go2) # ends while it is read-only
held=$(sub -H --wrap true) # released at the end
wait_for 15 sh -c "[ \"\$(squeue -h -t R -o %i | wc -l)\" -eq 2 ]"
is "$(job_state "$j1") $(job_state "$j2")" "RUNNING RUNNING" "two jobs run"
like "$(sdiag | grep -A1 'Takes changes')" "yes" "sdiag: changes are taken"

# --- full ---------------------------------------------------------------
# Below SluiceStateMinFree first (the controller sees it within a second,
# or at the next request), then to the last byte: nothing is written then.
avail=$(($(df --output=avail -B1 "$STATE" | tail -1) >> 20))
dd if=/dev/zero of="$STATE/fill1" bs=1M count=$((avail - 4)) status=none
FULL="StateSaveLocation $STATE is full \\([0-9]+ [KM]iB free, 8 MiB needed\\): submissions and other changes are refused until space is freed"
wait_for 5 sh -c "scontrol ping | grep -q 'is full'"
dd if=/dev/zero of="$STATE/fill2" bs=1M status=none 2>/dev/null
is "$(df --output=avail -B1 "$STATE" | tail -1 | tr -d ' ')" 0 "the tmpfs is full"
refusals "$FULL" "full" "$j1"
like "$(curl -s "$URL/metrics" | grep -E '^sluice_state_(writable|free_bytes) ')" \
    "^sluice_state_writable 0
sluice_state_free_bytes 0$" "/metrics: sluice_state_writable 0, no bytes free"

# A node daemon restarted meanwhile cannot register (its registration
# would record what its jobs did): it is refused, says so once, and tries
# again with backoff; `sluice up` restarts it and waits for it.
npid=$(cat "$DIR/pids/node02.pid")
kill -TERM "$npid"
wait_for 10 eval '! kill -0 '"$npid"' 2>/dev/null'
sluice up --dir "$DIR" >up2.out 2>&1 &
UP2=$!
wait_for 10 grep -q 'state=refused reason="StateSaveLocation .* is full' \
    "$DIR/log/node02.log"
wait_for 10 bash -c "[ \"\$(refused NODE_REGISTER)\" -ge 2 ] 2>/dev/null"
is "$(grep -c 'state=refused' "$DIR/log/node02.log")" 1 \
    "a restarted node daemon is refused registration and says so once"

touch go1
wait_for 10 ended_on_node "$j1"
# sluiced offers the end every second; the controller refuses it and it is
# kept (logged once), not dropped
wait_for 10 bash -c "[ \"\$(refused JOB_END)\" -ge 2 ] 2>/dev/null"
is "$(job_state "$j1")" RUNNING \
    "a job that ended while the directory is full is not recorded yet"
is "$(cat "$DIR"/log/node*.log | grep -c "job=$j1 JOB_END refused, will retry")" 1 \
    "the node keeps its end and says so once"

rm -f "$STATE/fill1" "$STATE/fill2"
wait_for 10 job_ended "$j1"
is "$(sacct -n -X -P -j "$j1" -o State,ExitCode)" "COMPLETED|0:0" \
    "once space is freed, its end is recorded (COMPLETED, exit code 0)"
wait "$UP2"
is "$? $(sinfo -h -n node02 -o %T)" "0 idle" \
    "the restarted node daemon registers once space is freed"
like "$(sub --wrap true)" '^[0-9]+$' "sbatch works again"
is "$(grep -c 'state_writable=0 .* is full' "$LOG") $(grep -c 'state_writable=1' "$LOG")" \
    "1 1" "one log line when writes stopped, one when they resumed"

# --- read-only ----------------------------------------------------------
mount --bind "$STATE" "$STATE" && mount -o remount,bind,ro "$STATE"
RO="StateSaveLocation $STATE is on a read-only file system: submissions and other changes are refused until it is writable again"
wait_for 5 sh -c "scontrol ping | grep -q 'read-only'"
refusals "$RO" "read-only" "$j2"
touch go2
wait_for 10 ended_on_node "$j2"
is "$(job_state "$j2")" RUNNING \
    "a job that ended while the directory is read-only is not recorded yet"
mount -o remount,bind,rw "$STATE" && umount "$STATE"
wait_for 10 job_ended "$j2"
is "$(sacct -n -X -P -j "$j2" -o State,ExitCode)" "COMPLETED|0:0" \
    "once it is writable, its end is recorded"
like "$(sub --wrap true)" '^[0-9]+$' "sbatch works again after the read-only spell"
is "$(grep -c 'state_writable=0' "$LOG") $(grep -c 'state_writable=1' "$LOG")" \
    "2 2" "one log line each way for the read-only spell too"

# --- SluiceStateMinFree lowered while changes are refused ----------------
# scontrol reconfigure is served all the same (it writes nothing), so an
# operator can trade some of the room kept for service.
dd if=/dev/zero of="$STATE/fill1" bs=1M \
    count=$(($(df --output=avail -B1 "$STATE" | tail -1) / 1048576 - 4)) status=none
wait_for 5 sh -c "scontrol ping | grep -q 'is full'"
sed -i 's/^SluiceStateMinFree=.*/SluiceStateMinFree=1M/' "$SLUICE_CONF"
like "$(scontrol reconfigure 2>&1)" "SluiceStateMinFree changed: 8M -> 1M" \
    "scontrol reconfigure works while changes are refused"
like "$(sub --wrap true)" '^[0-9]+$' "with SluiceStateMinFree=1M sbatch works"
rm -f "$STATE/fill1"
sed -i 's/^SluiceStateMinFree=.*/SluiceStateMinFree=8M/' "$SLUICE_CONF"
scontrol reconfigure >/dev/null 2>&1

# --- nothing accepted is lost -------------------------------------------
scontrol release "$held"
all_final() {
    local id
    for id in $(cat ids); do job_ended "$id" || return 1; done
}
wait_for 15 all_final
lost=
for id in $(cat ids); do
    case $(sacct -n -X -P -j "$id" -o State) in
    COMPLETED) ;;
    *) lost="$lost $id:$(sacct -n -X -P -j "$id" -o State)" ;;
    esac
done
is "$lost" "" "every job sbatch accepted ($(wc -l <ids)) is in sacct, COMPLETED"
is "$(grep -c ' fatal: ' "$LOG")" 0 "the controller never stopped"
cluster_gone
finish
