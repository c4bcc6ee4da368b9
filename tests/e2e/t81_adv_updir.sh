#!/usr/bin/env bash
# `sluice up --dir DIR` as root on a DIR another user prepared (audit
# finding 3): the audit's recipe (a pid-file symlink to a file outside
# DIR, a forged job.999 spool naming a decoy process group, a .status.tmp
# symlink) and its variants are refused with a message naming the
# offending path, and nothing outside DIR changes.  The CLI also refuses
# a controller socket another user listens on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup
CONF_SRC=$E2E_ROOT/etc/quant-cluster.conf
Q=$(mktemp -u /tmp/sluice-q.XXXXXX)
R=$(mktemp -u /tmp/sluice-r.XXXXXX)
DECOY=
DECOY_PG=
LISTENER=

updir_cleanup() {
    [ -n "$DECOY" ] && kill -- -"$DECOY_PG" "$DECOY" 2>/dev/null
    [ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
    # daemons started on Q or R by a failed check would be ours to stop
    for d in "$Q" "$R"; do
        pgrep -f "sluice(ctld|d) .*$d/" >/dev/null &&
            sluice down --cancel --dir "$d" >/dev/null 2>&1
    done
    rm -rf "$Q" "$R"
    adv_cleanup
}
trap updir_cleanup EXIT

# Files outside DIR that root must not touch: root's own, known content.
VICTIM=$WORK/victim-motd
VICTIM2=$WORK/victim-issue
echo "motd before" >"$VICTIM"
echo "issue before" >"$VICTIM2"
chmod 600 "$VICTIM" "$VICTIM2"
sum0=$(stat -c '%a %s %Y' "$VICTIM" "$VICTIM2"; cat "$VICTIM" "$VICTIM2")

# A decoy process group of the bystander's, which the forged spool names.
setsid runuser -u "$GOOD" -- sleep 600 </dev/null >/dev/null 2>&1 &
wait_for 5 pgrep -u "$GOOD" -x sleep
DECOY=$(pgrep -u "$GOOD" -n -x sleep)
DECOY_PG=$(ps -o pgid= -p "$DECOY" | tr -d ' ')

# --- the audit's recipe: DIR made by the attacker first ---------------------
runuser -u "$MAL" -- sh -c "mkdir -p $Q/spool/node01/job.999 $Q/state &&
    cd $Q/spool/node01 && ln -s $VICTIM sluiced.pid &&
    echo '1 999999999' > job.999/supervisor.pid &&
    ln -s $VICTIM2 job.999/.status.tmp && echo $DECOY_PG > job.999/pgid &&
    ln -s $VICTIM $Q/state/sluicectld.pid"
out=$(sluice up -f "$CONF_SRC" --dir "$Q" 2>&1)
rc=$?
isnt_zero() { [ "$1" -ne 0 ] && ok "$2" || not_ok "$2"; }
isnt_zero "$rc" "root's sluice up on a directory the attacker made fails"
like "$out" "$Q belongs to uid $(id -u "$MAL"), not to uid 0" \
    "the message names the directory and its owner"

# --- variants: root's DIR with the attacker's things inside -----------------
# (what a directory that was writable once, or a careless chown, leaves)
mkdir -m 700 "$R"
try_r() { # WHAT PATH: sluice up on R refuses, naming PATH
    local o
    o=$(sluice up -f "$CONF_SRC" --dir "$R" 2>&1)
    if [ $? -ne 0 ] && printf '%s\n' "$o" | grep -qF -- "$2"; then
        ok "refused: $1 ($2)"
    else
        not_ok "refused: $1 ($2)"
        printf '#   %s\n' "$o" | tail -3
    fi
}
mkdir -p "$R/spool/node01/job.999"
chown -R "$MAL" "$R/spool/node01"
try_r "a spool subdirectory of the attacker's" "$R/spool/node01"
chown -R root "$R/spool/node01"
ln -s "$VICTIM" "$R/spool/node01/sluiced.pid"
try_r "a symbolic link to a file outside DIR" "$R/spool/node01/sluiced.pid"
rm "$R/spool/node01/sluiced.pid"
echo "1 999999999" >"$R/spool/node01/job.999/supervisor.pid"
echo "$DECOY_PG" >"$R/spool/node01/job.999/pgid"
chown "$MAL" "$R/spool/node01/job.999/pgid"
try_r "a forged job.999/pgid of the attacker's" "$R/spool/node01/job.999/pgid"
rm -rf "$R/spool/node01/job.999"
chmod 777 "$R/spool"
try_r "a spool directory writable by others" "$R/spool is writable by group or others"
chmod 711 "$R/spool"
cp "$SLUICE_CONF" "$R/sluice.conf"
chown "$MAL" "$R/sluice.conf"
try_r "a sluice.conf of the attacker's (reused as it is)" "$R/sluice.conf"
rm "$R/sluice.conf"
mkdir -p "$R/state"
touch "$R/state/sluice.db"
chown "$MAL" "$R/state/sluice.db"
try_r "a pre-seeded state/sluice.db of the attacker's" "$R/state/sluice.db"
rm "$R/state/sluice.db"
chmod 775 "$R"
try_r "DIR itself writable by its group" "$R is writable by group or others"
chmod 700 "$R"

# the daemons themselves refuse a state or spool directory others may write
mkdir -m 777 "$WORK/ww"
chmod 777 "$WORK/ww" # whatever the umask
sed "s|^StateSaveLocation=.*|StateSaveLocation=$WORK/ww|;
     s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$WORK/ww|" "$SLUICE_CONF" >"$WORK/ww.conf"
out=$(timeout 10 "$E2E_BIN/sluicectld" -f "$WORK/ww.conf" -D 2>&1)
like "$out" "StateSaveLocation: $WORK/ww is writable by group or others \(mode 0777\): run chmod go-w $WORK/ww" \
    "sluicectld refuses a StateSaveLocation writable by others, saying how to fix it"
out=$(timeout 10 "$E2E_BIN/sluiced" -N node01 -f "$WORK/ww.conf" -D 2>&1)
like "$out" "SlurmdSpoolDir: $WORK/ww is writable by group or others" \
    "sluiced refuses a SlurmdSpoolDir writable by others"
chmod 755 "$WORK/ww"
chown "$MAL" "$WORK/ww"
out=$(timeout 10 "$E2E_BIN/sluicectld" -f "$WORK/ww.conf" -D 2>&1)
like "$out" "StateSaveLocation: $WORK/ww belongs to uid $(id -u "$MAL")" \
    "sluicectld refuses a StateSaveLocation of another user"

# nothing outside DIR changed, the decoy lives, no daemon runs on Q or R
sleep 4 # the audit's SIGKILL came 3 s after adoption
is "$(stat -c '%a %s %Y' "$VICTIM" "$VICTIM2"; cat "$VICTIM" "$VICTIM2")" \
    "$sum0" "the symlinks' targets are unchanged (content, mode, mtime)"
if alive "$DECOY"; then
    ok "the decoy process group still lives"
else
    not_ok "the decoy process group still lives"
fi
left=$(pgrep -a -f "sluice(ctld|d) .*($Q|$R)/")
is "$left" "" "no daemon was started on the refused directories"

# --- the CLI trusts only a controller socket root or the caller listens on ---
# The attacker's listener in a state directory of theirs; root's
# configuration points there (or root's SLUICE_CONF does, via a DIR the
# attacker owns).  root's sbatch must send it nothing.
A=$WORK/$MAL/astate
runuser -u "$MAL" -- mkdir -p "$A"
sed "s|^StateSaveLocation=.*|StateSaveLocation=$A|" "$SLUICE_CONF" >"$WORK/trap.conf"
runuser -u "$MAL" -- "$ADV_PY" - "$A/sluicectld.sock" "$A/got" "$A/pid" \
    <<'PY' >/dev/null 2>&1 &
import os, socket, sys
open(sys.argv[3], "w").write(str(os.getpid()))
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
s.settimeout(20)
n = 0
try:
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            while True:
                d = c.recv(65536)
                if not d:
                    break
                n += len(d)
        except OSError:
            pass
        open(sys.argv[2], "w").write(str(n))
except OSError:
    pass
PY
wait_for 5 test -S "$A/sluicectld.sock"
LISTENER=$(cat "$A/pid")
out=$(AWS_SECRET_ACCESS_KEY=hunter2-$$ SLUICE_CONF=$WORK/trap.conf \
    sbatch -p dev -D "$WORK" --wrap true 2>&1)
like "$out" "refusing $A/sluicectld.sock: the process listening there runs as uid $(id -u "$MAL")" \
    "root's sbatch refuses a socket the attacker listens on"
sleep 1
is "$(cat "$A/got" 2>/dev/null || echo 0)" 0 "the attacker's listener received nothing"
kill "$LISTENER" 2>/dev/null
LISTENER=

still_serving "after the sluice up --dir attacks"
finish
