#!/usr/bin/env bash
# Nice on a one-node local cluster (2 CPUs) with age-only priority:
#  - sbatch --nice with no value is 100, shown by scontrol show job, squeue
#    %y and sprio's NICE column (and its --json);
#  - scontrol update Nice= recomputes the priority at once;
#  - of two equal jobs, the niced one runs second although it is older;
#  - an administrator may set a negative nice, another user may not (with
#    sbatch or scontrol update), and the refusal names the option.
. "$(dirname "$0")/lib.sh"

running() {
    [ "$(job_state "$1")" = RUNNING ]
}

cluster_start "$E2E_ROOT/tests/e2e/conf/prio_age.conf"
block=$(submit -c 2 -t 1 --wrap 'sleep 30')
wait_for 10 running "$block"

# the older job is niced: without nice it would run first (t60)
niced=$(submit --nice -c 2 -t 1 --wrap 'sleep 30')
plain=$(submit -c 2 -t 1 --wrap 'sleep 30')
like "$(scontrol show job "$niced")" ' Nice=100 ' \
    "sbatch --nice without a value sets Nice=100 (scontrol show job)"
is "$(squeue -h -j "$niced" -o '%y')" "100" "squeue %y prints the nice value"

out=$(scontrol update JobId="$niced" Nice=5000 2>&1)
is "$?:$out" "0:" "scontrol update Nice=5000 is accepted"
is "$(sprio -h -j "$niced" -o '%N' | tr -d ' ')" "5000" \
    "sprio's NICE column shows the update at once"
is "$(sprio --json -j "$niced" | jq -r '.jobs[0].nice')" "5000" \
    "sprio --json has the nice value"
if wait_for 15 higher "$plain" "$niced"; then
    ok "the younger job without nice has the higher priority"
else
    not_ok "the younger job without nice has the higher priority"
    sprio -l 2>&1 | sed 's/^/#   /'
fi
scancel "$block"
wait_for 15 running "$plain"
is "$(job_state "$plain") $(job_state "$niced")" "RUNNING PENDING" \
    "of two equal jobs, the niced one runs second"

out=$(sbatch --nice=abc --wrap true 2>&1)
like "$out" 'nice=abc' "sbatch --nice=abc is refused naming the option"
admin=$(submit --nice=-7 -H --wrap true 2>&1)
like "$(scontrol show job "$admin" 2>&1)" ' Nice=-7 ' \
    "an administrator may submit with a negative nice"
scancel "$plain" "$niced" "$admin"

# --- another user may not lower nice below 0 ------------------------------
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null &&
    command -v runuser >/dev/null; then
    U=sluicen$$
    if useradd -M -d /nonexistent -s /bin/sh "$U"; then
        trap 'cluster_stop; userdel "$U" 2>/dev/null' EXIT
        chmod 755 "$DIR" "$WORK"
        mkdir -p "$WORK/$U"
        chown "$U" "$WORK/$U"
        as() {
            (cd "$WORK/$U" && runuser -u "$U" -- env SLUICE_CONF="$SLUICE_CONF" \
                "$E2E_BIN/$1" "${@:2}")
        }
        out=$(as sbatch --parsable --nice=-5 -H --wrap true 2>&1)
        like "$out" 'nice=-5: only an operator or administrator may set a negative nice value' \
            "a user's sbatch --nice=-5 is refused, naming the option"
        mine=$(as sbatch --parsable --nice=20 -H --wrap true 2>&1)
        like "$mine" '^[0-9]+$' "a user may submit with a positive nice"
        out=$(as scontrol update JobId="$mine" Nice=-1 2>&1)
        like "$out" 'Nice=-1: only an operator or administrator' \
            "a user's scontrol update Nice=-1 is refused"
        like "$(scontrol show job "$mine" 2>&1)" ' Nice=20 ' \
            "the refused update changed nothing"
        out=$(as scontrol update JobId="$mine" Nice=0 2>&1)
        like "$(scontrol show job "$mine" 2>&1)" ' Nice=0 ' \
            "a user may lower their job's nice to 0"
        scancel "$mine"
    else
        not_ok "useradd $U"
    fi
fi
finish
