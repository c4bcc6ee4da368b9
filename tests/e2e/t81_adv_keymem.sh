#!/usr/bin/env bash
# Audit finding 19: a job's supervisor, and the job's own process until its
# execve (running as the user by then), are forks of sluiced and so copies
# of its heap.  sluiced's auth/key key must not be in them: the supervisor
# destroys its copy of the credentials first thing after the fork.  Root
# reads the memory of sluiced and of a running job's supervisor and looks
# for the key's bytes: in sluiced (so the search can find it), not in the
# supervisor.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "reading another process's memory needs root"
[ -x /usr/bin/python3 ] || skip_all "/usr/bin/python3 is not installed"
# ASan's allocator keeps the heap in a reservation of terabytes that cannot
# be read through; the search is for the build that is deployed.
[ "${SLUICE_BUILD:-build}" = build-san ] &&
    skip_all "the sanitizers' heap cannot be searched (run with the normal build)"
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# has_key PID: the key file's bytes stand in the process's writable memory.
has_key() {
    /usr/bin/python3 - "$1" "$DIR/sluice.key" <<'PY'
import re, sys
pid, key = sys.argv[1], open(sys.argv[2], 'rb').read().rstrip()
found = False
with open(f'/proc/{pid}/maps') as maps, open(f'/proc/{pid}/mem', 'rb') as mem:
    for line in maps:
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) (\S+)', line)
        lo, hi, perms = int(m[1], 16), int(m[2], 16), m[3]
        if not perms.startswith('rw') or hi - lo > (1 << 30):
            continue
        try:
            mem.seek(lo)
            if key in mem.read(hi - lo):
                found = True
                break
        except (OSError, ValueError, OverflowError):
            pass
sys.exit(0 if found else 1)
PY
}

grep -q '^AuthType=auth/key' "$SLUICE_CONF" || skip_all "the local cluster does not use auth/key"
nd=$(cat "$DIR/pids/node04.pid")
if has_key "$nd"; then
    ok "the key's bytes are found in sluiced's memory (the search works)"
else
    not_ok "the key's bytes are found in sluiced's memory (the search works)"
fi

id=$(sbatch --parsable -p dev -o /dev/null --wrap 'sleep 30')
sup=
if wait_for 15 test -s "$DIR/spool/node04/job.$id/supervisor.pid"; then
    sup=$(sed -n '1s/ .*//p' "$DIR/spool/node04/job.$id/supervisor.pid")
fi
if [ -n "$sup" ] && alive "$sup"; then
    if has_key "$sup"; then
        not_ok "the job's supervisor holds no copy of sluiced's key"
    else
        ok "the job's supervisor holds no copy of sluiced's key"
    fi
else
    not_ok "job $id has a running supervisor (spool $DIR/spool/node04/job.$id)"
fi
scancel "$id"
wait_for 15 job_ended "$id"
cluster_gone
finish
