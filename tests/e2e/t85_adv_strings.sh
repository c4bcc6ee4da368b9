#!/usr/bin/env bash
# User strings an attacker controls, checked by the controller and shown
# safely (audit findings 9, 17 and 20): a 15 MiB script or an oversized
# environment, name or accounting value sent raw is refused with a
# message naming the field and its limit, and the state database does not
# grow by it; a job name full of terminal escapes reaches no terminal
# through squeue, scontrol, sacct or explain, nor through an error
# message (--json stays exact JSON).  Log lines: tests/unit/test_log.c.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup
STATE=$(dirname "$SOCK")

# db_bytes: the state database and its write-ahead log, in bytes.
db_bytes() {
    cat "$STATE"/sluice.db "$STATE"/sluice.db-wal 2>/dev/null | wc -c
}

# has_ctl TEXT: TEXT holds an ESC, BEL, CSI (C1) or other C0 byte but
# newline and tab.
has_ctl() {
    printf '%s' "$1" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]'
}

# ---- finding 9: sizes are the controller's to enforce ------------------
before=$(db_bytes)
out=$(adv_py "$MAL" <<'PY'
from sl import *
big = "A" * (15 << 20)
for i in range(3):
    r = call(SUBMIT, {"job": {"script": "#!/bin/sh\n#" + big,
                              "partition": "dev", "hold": True,
                              "work_dir": "/tmp"}})
    print(r.get("job_id") or r["error"]["message"])
PY
)
is "$(printf '%s\n' "$out" | sort -u)" \
    "job script is 15728651 bytes, the limit is 4194304 (SchedulerParameters=max_script_size)" \
    "a raw 15 MiB script is refused three times, naming the limit"
sleep 0.5
after=$(db_bytes)
if [ $((after - before)) -lt $((1 << 20)) ]; then
    ok "the state database did not grow by the refused scripts ($before -> $after bytes)"
else
    not_ok "the state database did not grow by the refused scripts ($before -> $after bytes)"
fi

out=$(adv_py "$MAL" <<'PY'
from sl import *
def sub(**kw):
    job = {"script": "#!/bin/sh\ntrue\n", "partition": "dev", "hold": True,
           "work_dir": "/tmp"}
    job.update(kw)
    r = call(SUBMIT, {"job": job})
    print(r.get("job_id") or r["error"]["message"])
sub(environment={"V%d" % i: "B" * 1000 for i in range(3000)})
sub(environment={"BIG": "B" * (1 << 20)})
sub(name="N" * 5000)
sub(std_out="/tmp/" + "o" * 5000)
sub(argv=["x"] * 5000)
r = call(41, {"entity": "account", "where": {"Name": "root"},
              "set": [{"key": "Description", "value": "D" * 100000}]})
print(r.get("error", {}).get("message", r))
PY
)
is "$out" "job environment is 3019890 bytes, the limit is 1048576
job environment variable BIG is 1048580 bytes, the limit is 131072
job name is 5000 bytes, the limit is 1024
job std_out is 5005 bytes, the limit is 4096
job argv has 5000 arguments, the limit is 4096
set Description is 100000 bytes, the limit is 4096" \
    "oversized environment, name, path, argv and accounting value are refused by name"
# the CLI relays the controller's words for a script over max_script_size
printf '#!/bin/sh\n' >"$WORK/$MAL/big.sh"
head -c $((5 << 20)) /dev/zero | tr '\0' '#' >>"$WORK/$MAL/big.sh"
chown "$MAL" "$WORK/$MAL/big.sh"
out=$(as_user "$MAL" sbatch -H -p dev big.sh 2>&1)
like "$out" "job script is 5242890 bytes, the limit is 4194304" \
    "sbatch with a 5 MiB script gets the controller's limit"
still_serving "after oversized submissions"

# ---- finding 17: terminal escapes in a job name ------------------------
name=$(printf 'x\033[2J\033]2;pwned\007')
id=$(as_user "$MAL" sbatch --parsable -H -p dev -D /tmp -J "$name" --wrap true 2>&1)
like "$id" '^[0-9]+$' "a job named with terminal escapes is accepted (as Slurm)"
for cmd in "squeue -j $id" "squeue -h -j $id -o %j" "scontrol show job $id" \
    "sacct -j $id -o JobID,JobName%40" \
    "sluice explain $id"; do
    out=$($cmd 2>&1)
    if has_ctl "$out"; then
        not_ok "$cmd prints no control byte"
        printf '%s\n' "$out" | od -c | head -5 | sed 's/^/#   /'
    else
        ok "$cmd prints no control byte"
    fi
done
is "$(squeue -h -j "$id" -o %j)" 'x^[[2J^[]2;pwned^G' "squeue shows the name escaped"
like "$(scontrol show job "$id")" 'JobName=x\^\[\[2J\^\[\]2;pwned\^G' \
    "scontrol show job shows the name escaped"
out=$(squeue --json -j "$id")
if has_ctl "$out"; then
    not_ok "squeue --json prints no control byte"
else
    ok "squeue --json prints no control byte"
fi
got=$(printf '%s' "$out" | "$ADV_PY" -c \
    'import json,sys; print(json.load(sys.stdin)["jobs"][0]["name"] == "x\x1b[2J\x1b]2;pwned\x07")')
is "$got" True "squeue --json keeps the exact name"
# a C1 CSI (U+009B) and a newline are escaped too
id2=$(as_user "$MAL" sbatch --parsable -H -p dev -D /tmp \
    -J "$(printf 'c\xc2\x9b31m\nforged')" --wrap true 2>&1)
is "$(squeue -h -j "$id2" -o %j)" 'c?31m^Jforged' "C1 controls and newlines are escaped"
out=$(as_user "$MAL" scontrol update JobId="$id2" \
    Partition="$(printf 'p\033[2J')" 2>&1)
if has_ctl "$out"; then
    not_ok "an error quoting a user string prints no control byte"
else
    ok "an error quoting a user string prints no control byte"
fi

# ---- finding 20: a long path cut inside a character ---------------------
for pad in "" x xx; do
    wd="/nonexistent/$pad$(printf '\xe6\x97\xa5%.0s' $(seq 300))"
    id4=$(as_user "$MAL" sbatch --parsable -p dev -D "$wd" --wrap true 2>&1)
    if ! [[ "$id4" =~ ^[0-9]+$ ]] || ! wait_for 15 job_ended "$id4"; then
        not_ok "a job in a ${#wd}-character directory ends ($id4)"
        continue
    fi
    r=$(scontrol show job "$id4" | sed -n 's/.*JobState=[A-Z_]* Reason=//p')
    if [[ "$r" == "launch_failed:_cannot_chdir_to_/nonexistent/$pad"$'\xe6\x97\xa5'* ]] &&
        [[ "$r" != *'?'* ]]; then
        ok "a launch failure in a long multibyte path keeps its reason ('$pad')"
    else
        not_ok "a launch failure in a long multibyte path keeps its reason ('$pad')"
        echo "#   got: $(printf '%s' "$r" | head -c 80)"
    fi
done
still_serving "after escapes and newlines in user strings"
finish
