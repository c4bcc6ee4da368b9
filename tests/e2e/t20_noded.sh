#!/usr/bin/env bash
# sluiced on its own (no controller needed): the hostname-mismatch refusal
# under a private UTS namespace (the seed's node1 vs node[01-04] pitfall),
# -N checks, key file checks, one daemon per spool, daemonizing with a pid
# file, and an unreachable controller logged once rather than per attempt.
# Job launching, ends and restarts are covered by unit/test_noded_daemon
# (a fake controller); the full cluster by the CLI's end-to-end tests.
set -u
cd "$(dirname "$0")/../.."
BUILD=${SLUICE_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
SLUICED=$BUILD/bin/sluiced
TMP=$(mktemp -d /tmp/sluice-t20.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    [ -f "$TMP/spool/node02/sluiced.pid" ] &&
        kill "$(cat "$TMP/spool/node02/sluiced.pid")" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { # check WHAT CMD...: ok when CMD succeeds
    local what=$1; shift
    if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# A free loopback port with nothing listening: the controller is "down".
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 47817)
cat >"$TMP/sluice.conf" <<CONF
ClusterName=t20
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
AuthType=auth/key
AuthInfo=$TMP/sluice.key
SlurmdSpoolDir=$TMP/spool/%n
GresTypes=gpu
NodeName=node[01-04] CPUs=1 RealMemory=100 Gres=gpu:4
PartitionName=gpu Nodes=node[01-04] Default=YES MaxTime=INFINITE State=UP
CONF
CONF=$TMP/sluice.conf
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/sluice.key"
chmod 600 "$TMP/sluice.key"

# 1. the seed's pitfall, for real: host node1, NodeName=node[01-04]
want="sluiced: hostname \"node1\" is not a NodeName in $CONF (NodeName=node[01-04] is node01,node02,node03,node04); did you mean \"node01\"? Rename the host, add NodeHostname=node1, or start with -N node01"
if unshare -u true 2>/dev/null; then
    got=$(unshare -u sh -c "hostname node1; exec $SLUICED -f $CONF -D" 2>&1)
    rc=$?
    if [ $rc -eq 1 ] && [ "$got" = "$want" ]; then
        ok "hostname node1 refused with the expansion and the nearest name"
    else
        not_ok "hostname node1 refused with the expansion and the nearest name"
        echo "# rc=$rc"; echo "# got:  $got"; echo "# want: $want"
    fi
    unshare -u sh -c "hostname node03.lab.example; exec $SLUICED -f $CONF -D -L $TMP/n3.log" >"$TMP/n3.err" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 50); do grep -q "starting" "$TMP/n3.log" 2>/dev/null && break; sleep 0.1; done
    got=$(cat "$TMP/n3.log" "$TMP/n3.err" 2>/dev/null)
    kill "${PIDS[0]}" 2>/dev/null
    wait "${PIDS[0]}" 2>/dev/null
    PIDS=()
    case $got in
    *"starting node=node03"*) ok "hostname node03.lab.example serves node03" ;;
    *) not_ok "hostname node03.lab.example serves node03"; echo "# $got" ;;
    esac
else
    ok "# skip hostname node1 (no unshare -u here)"
    ok "# skip hostname node03.lab.example (no unshare -u here)"
fi

# 2. -N must name a node
got=$($SLUICED -f "$CONF" -N node5 -D 2>&1)
check "-N node5 refused naming node04" test "$got" = "sluiced: -N node5: no NodeName \"node5\" in $CONF (NodeName=node[01-04] is node01,node02,node03,node04); did you mean \"node04\"?"

# 3. the key file must be private
chmod 644 "$TMP/sluice.key"
got=$($SLUICED -f "$CONF" -N node01 -D 2>&1)
rc=$?
chmod 600 "$TMP/sluice.key"
case $got in
*"must be mode 0600"*) check "a 0644 key file is refused (rc=$rc)" test $rc -eq 1 ;;
*) not_ok "a 0644 key file is refused"; echo "# $got" ;;
esac

# 4. foreground daemon, controller down: one log line, not one per attempt
$SLUICED -f "$CONF" -N node01 -D -L "$TMP/node01.log" 2>"$TMP/node01.err" &
PIDS+=($!)
sleep 2
lines=$(grep -c "state=unreachable" "$TMP/node01.log")
check "unreachable controller logged once in 2 s (got $lines)" test "$lines" -eq 1
check "still running while the controller is down" kill -0 "${PIDS[0]}"

# 5. a second sluiced on the same spool is refused
got=$($SLUICED -f "$CONF" -N node01 -D 2>&1)
check "second sluiced refused" test "$got" = "sluiced: another sluiced (pid ${PIDS[0]}) is running with $TMP/spool/node01/sluiced.pid"
kill "${PIDS[0]}"
wait "${PIDS[0]}" 2>/dev/null
check "SIGTERM stops it and removes its pid file" test ! -e "$TMP/spool/node01/sluiced.pid"

# 6. without -D it daemonizes and writes its pid file
$SLUICED -f "$CONF" -N node02
rc=$?
for _ in $(seq 50); do [ -s "$TMP/spool/node02/sluiced.pid" ] && break; sleep 0.1; done
pid=$(cat "$TMP/spool/node02/sluiced.pid" 2>/dev/null)
check "daemonized (rc=$rc) with a live pid in its pid file" kill -0 "${pid:-0}"
check "logs to SPOOL/sluiced.log by default" grep -q "starting node=node02" "$TMP/spool/node02/sluiced.log"
mv "$TMP/spool/node02/sluiced.log" "$TMP/rotated.log"
kill -HUP "$pid"
for _ in $(seq 50); do [ -s "$TMP/spool/node02/sluiced.log" ] && break; sleep 0.1; done
check "SIGHUP reopens the log file" grep -q "log reopened" "$TMP/spool/node02/sluiced.log"
check "... private, as the first one" test "$(stat -c %a "$TMP/spool/node02/sluiced.log")" = 600
check "... and the rotated one gets no more lines" sh -c '! grep -q "log reopened" "$1"' _ "$TMP/rotated.log"
kill "$pid" 2>/dev/null
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check "the daemon stops on SIGTERM" test ! -e "$TMP/spool/node02/sluiced.pid"
