#!/usr/bin/env bash
# Authentication on a real four-node local cluster: jobs end to end with
# auth/key and with auth/munge (against a munged this test starts), the CLI
# over TCP with each; and frames that must be refused, sent to the running
# controller by tests/e2e/frametool.c (another key, a changed body, no
# credential, an expired or replayed credential, oversize headers, 10,000
# random and mutated frames), after each of which the same controller
# process still serves a normal client.
. "$(dirname "$0")/lib.sh"

FRAMETOOL=$E2E_ROOT/$E2E_BUILD/tests/frametool
[ -x "$FRAMETOOL" ] || skip_all "$FRAMETOOL is not built"
FUZZ_FRAMES=${FUZZ_FRAMES:-10000}
FUZZ_SEED=${FUZZ_SEED:-$$}
MUNGED_PID=

stop_all() {
    cluster_stop
    if [ -n "$MUNGED_PID" ]; then
        kill "$MUNGED_PID" 2>/dev/null
        wait "$MUNGED_PID" 2>/dev/null
        MUNGED_PID=
    fi
}

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
trap stop_all EXIT

ctld_pid() {
    cat "$DIR/pids/sluicectld.pid" 2>/dev/null
}

# DIR/tcp.conf: the cluster's configuration without its unix socket, so
# that the CLI goes over TCP with a credential of the configured kind.
tcp_conf() {
    sed -e "s#^StateSaveLocation=.*#StateSaveLocation=$DIR/no-socket-here#" \
        "$SLUICE_CONF" >"$DIR/tcp.conf"
}

# serving AFTER: the controller that ran before still runs, under the same
# pid, and sbatch (a normal client, on the unix socket) is served.
serving() {
    local id
    id=$(submit -H -p dev -J still-serving --wrap true 2>&1)
    if [[ $id =~ ^[0-9]+$ ]] && [ "$(ctld_pid)" = "$PID0" ] && alive "$PID0"; then
        ok "$KIND: after $1 the same controller still serves sbatch"
    else
        not_ok "$KIND: after $1 the same controller still serves sbatch"
        echo "#   sbatch: $id; controller pid $PID0, now $(ctld_pid)"
    fi
}

# end_to_end: a job submitted on the unix socket and one over TCP run on
# the nodes (which always talk to the controller over TCP) and finish.
end_to_end() {
    local a b
    a=$(submit -p dev -o "$KIND-unix.out" --wrap "echo $KIND unix")
    b=$(SLUICE_CONF=$DIR/tcp.conf submit -p prod -o "$KIND-tcp.out" \
        --wrap "echo $KIND tcp" 2>&1)
    like "$b" '^[0-9]+$' "$KIND: sbatch over TCP with a credential"
    wait_for 15 job_ended "$a"
    wait_for 15 job_ended "$b"
    is "$(job_state "$a") $(cat "$KIND-unix.out" 2>&1)" "COMPLETED $KIND unix" \
        "$KIND: a job from the unix socket runs on a node and completes"
    is "$(job_state "$b") $(cat "$KIND-tcp.out" 2>&1)" "COMPLETED $KIND tcp" \
        "$KIND: a job submitted over TCP runs and completes"
    is "$(SLUICE_CONF=$DIR/tcp.conf squeue -h -t all -j "$b" -o '%i %T' 2>&1)" \
        "$b COMPLETED" "$KIND: squeue over TCP"
}

# attack NAME REGEX ARGS...: frametool ARGS prints what the controller
# answered, which must match REGEX; then the controller still serves.
attack() {
    local name=$1 want=$2 out
    shift 2
    out=$("$FRAMETOOL" "$@" 2>&1)
    like "$out" "$want" "$KIND: $name"
    serving "$name"
}

# --- auth/key --------------------------------------------------------------
KIND=key
tcp_conf
PID0=$(ctld_pid)
like "$(grep -m1 'auth=' "$DIR/log/sluicectld.log")" 'auth=auth/key' \
    "key: the controller runs with auth/key"
end_to_end
attack "a frame signed with another key is refused" \
    '^refused EACCES: auth/key: credential MAC does not verify' \
    wrong-key "$DIR/other.key"
attack "a frame changed after signing is refused" \
    '^refused EACCES: auth/key: frame does not match its credential' tamper
attack "a frame without a credential is refused" \
    '^refused EACCES: auth/key: frame has no credential' unsigned
attack "an expired credential is refused" \
    '^refused EACCES: auth/key: credential expired' expired
attack "a replayed credential is refused, on the same and another connection" \
    '^first: accepted job [0-9]+
again: refused EACCES: auth/key: credential replayed
elsewhere: refused EACCES: auth/key: credential replayed$' replay
attack "a client that shuts down its side after a request still gets the reply" \
    '^accepted job [0-9]+$' halfclose
attack "frames over the size limits get an error reply, then the close" \
    '^body: refused EMSGSIZE: .*over the limit of 16777216
body: then closed
credential: refused EMSGSIZE: .*over the limit of 4096
credential: then closed$' oversize
before=$(squeue -h -t all -o %i | wc -l)
out=$("$FRAMETOOL" fuzz "$FUZZ_FRAMES" "$FUZZ_SEED" 2>&1)
like "$out" "fuzz: $FUZZ_FRAMES frames .*: [0-9]+ error replies, [0-9]+ cut short and closed, 0 accepted, 0 unanswered" \
    "key: $FUZZ_FRAMES random and mutated frames are each refused (seed $FUZZ_SEED)"
printf '%s\n' "$out" | grep -v '^fuzz:' | head -5 | sed 's/^/#   /'
like "$out" "bystander: answered PING" \
    "key: a connection open through all of it is still answered"
is "$(($(squeue -h -t all -o %i | wc -l) - before))" 1 \
    "key: of the fuzzing, only the one good original made a job"
serving "$FUZZ_FRAMES random frames"

# The key file is checked at start, with the reason.
cp "$DIR/sluice.key" "$DIR/loose.key"
chmod 644 "$DIR/loose.key"
sed -e "s#^AuthInfo=.*#AuthInfo=$DIR/loose.key#" \
    -e "s#^StateSaveLocation=.*#StateSaveLocation=$DIR/state2#" \
    -e "s#^SlurmctldPort=.*#SlurmctldPort=1#" "$SLUICE_CONF" >"$DIR/loose.conf"
msg=$(timeout 10 sluicectld -f "$DIR/loose.conf" -D 2>&1) && not_ok "a 0644 key accepted" ||
    like "$msg" "auth/key: $DIR/loose.key must be mode 0600 \(is 0644\)" \
        "key: sluicectld refuses a key file other users can read, saying why"
chmod 600 "$DIR/loose.key"
if chown 65534 "$DIR/loose.key" 2>/dev/null; then
    msg=$(timeout 10 sluicectld -f "$DIR/loose.conf" -D 2>&1) && not_ok "a key of another user accepted" ||
        like "$msg" "auth/key: $DIR/loose.key must be owned by uid $(id -u) \(is 65534\)" \
            "key: sluicectld refuses a key file owned by another user"
else
    ok "# SKIP a key owned by another user (chown needs root)"
fi

# --- auth/munge ------------------------------------------------------------
KIND=munge
MUNGED=$(command -v munged || echo /usr/sbin/munged)
MUNGEKEY=$(command -v mungekey || echo /usr/sbin/mungekey)
if [ ! -x "$MUNGED" ] || [ ! -x "$MUNGEKEY" ]; then
    ok "# SKIP auth/munge: munged or mungekey is not installed"
    finish
    exit
fi
# munged wants the path to its socket searchable by all.
M=$DIR/munge
chmod 755 "$DIR"
mkdir -m 755 "$M"
"$MUNGEKEY" -c -k "$M/munge.key" 2>"$M/mungekey.err" ||
    dd if=/dev/urandom of="$M/munge.key" bs=1024 count=1 status=none
chmod 600 "$M/munge.key"
"$MUNGED" -F --key-file="$M/munge.key" --socket="$M/munge.sock" \
    --pid-file="$M/munged.pid" --seed-file="$M/munged.seed" \
    --log-file="$M/munged.log" >"$M/munged.out" 2>&1 &
MUNGED_PID=$!
if ! wait_for 10 test -S "$M/munge.sock"; then
    not_ok "munged starts on a private socket"
    sed 's/^/#   /' "$M/munged.out" "$M/munged.log" 2>/dev/null
    finish
    exit
fi
ok "munged runs on a private socket (pid $MUNGED_PID)"

# The same cluster directory, its configuration switched to auth/munge;
# `sluice up` reuses it.
sluice down --dir "$DIR" >/dev/null 2>&1
sed -i -e "s#^AuthType=.*#AuthType=auth/munge#" \
    -e "s#^AuthInfo=.*#AuthInfo=socket=$M/munge.sock#" "$SLUICE_CONF"
grep -q '^AuthType=auth/munge$' "$SLUICE_CONF" ||
    echo "AuthType=auth/munge" >>"$SLUICE_CONF"
if ! sluice up --dir "$DIR" >/dev/null 2>"$DIR/up-munge.err"; then
    not_ok "sluice up with auth/munge"
    sed 's/^/#   /' "$DIR/up-munge.err"
    finish
    exit
fi
tcp_conf
PID0=$(ctld_pid)
like "$(grep 'auth=' "$DIR/log/sluicectld.log" | tail -1)" 'auth=auth/munge' \
    "munge: the controller runs with auth/munge"
end_to_end
attack "a frame changed after signing is refused" \
    '^refused EACCES: .*frame does not match its credential' tamper
attack "a frame without a credential is refused" \
    '^refused EACCES: .*no credential' unsigned
attack "an expired credential is refused" \
    '^refused EACCES: auth/munge: credential expired' expired
attack "a replayed credential is refused" \
    '^first: accepted job [0-9]+
again: refused EACCES: auth/munge: credential replayed
elsewhere: refused EACCES: auth/munge: credential replayed$' replay
out=$("$FRAMETOOL" fuzz 1000 "$FUZZ_SEED" 2>&1)
like "$out" "fuzz: 1000 frames .* 0 accepted, 0 unanswered" \
    "munge: 1000 random and mutated frames are each refused"
serving "1000 random frames"
finish
