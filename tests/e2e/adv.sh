# Helpers for the adversarial tests (tests/e2e/t8*_adv_*.sh), sourced after
# lib.sh and cluster_start: a second, unprivileged Unix user made for the
# test and removed again, commands run as that user, a raw-frame client in
# Python, and the check every attack ends with: the controller still
# serves everyone else.
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/adv.sh"
#   adv_need                         # skips the script unless root etc.
#   cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
#   adv_setup                        # makes $MAL (the attacker) and $GOOD
#   as_user "$MAL" sbatch ...        # a Slurm command as the attacker
#   adv_py "$MAL" <<'EOF' ... EOF    # Python with sl.py's frame helpers
#   still_serving "after the attack"

# Python with the standard library only, outside root's private paths
# (runuser drops PATH entries such as pyenv shims under /root).
ADV_PY=${ADV_PY:-/usr/bin/python3}
ADV_USERS=
CTLD_PID0=

adv_need() {
    [ "$(id -u)" = 0 ] || skip_all "an adversarial test needs root to make users"
    command -v useradd >/dev/null && command -v runuser >/dev/null ||
        skip_all "useradd or runuser is not installed"
    [ -x "$ADV_PY" ] || skip_all "$ADV_PY is not installed"
}

adv_cleanup() {
    cluster_stop
    for u in $ADV_USERS; do
        userdel "$u" 2>/dev/null
    done
    ADV_USERS=
}

# adv_user NAME: make an unprivileged user with an association (the
# seed's configuration enforces them).  Fails the script when it cannot.
adv_user() {
    if ! useradd -M -d /nonexistent -s /bin/sh "$1"; then
        not_ok "useradd $1"
        finish
        exit 1
    fi
    ADV_USERS="$ADV_USERS $1"
    sacctmgr -i add user "$1" account=root >/dev/null
    mkdir -p "$WORK/$1"
    chown "$1" "$WORK/$1"
}

# adv_setup: MAL (the attacker) and GOOD (a bystander whose service the
# attack must not take away), the controller's pid remembered, the raw
# client written where both can read it.
adv_setup() {
    trap adv_cleanup EXIT
    MAL=sluicem$$
    GOOD=sluiceg$$
    chmod 755 "$DIR" "$WORK"
    adv_user "$MAL"
    adv_user "$GOOD"
    CTLD_PID0=$(cat "$DIR/pids/sluicectld.pid")
    SOCK=$(sed -n 's/^StateSaveLocation=//p' "$SLUICE_CONF")/sluicectld.sock
    PORT=$(sed -n 's/^SlurmctldPort=//p' "$SLUICE_CONF")
    export SOCK PORT
    cp "$E2E_ROOT/tests/e2e/sl.py" "$WORK/sl.py"
    chmod 644 "$WORK/sl.py"
}

# as_user USER CMD ARGS...: a Slurm command run by USER in their directory.
as_user() {
    local u=$1 cmd=$2
    shift 2
    (cd "$WORK/$u" && runuser -u "$u" -- env SLUICE_CONF="$SLUICE_CONF" \
        PATH="$E2E_BIN:/usr/bin:/bin" "$E2E_BIN/$cmd" "$@")
}

# adv_py USER [ARGS...]: Python from standard input run as USER, with
# sl.py importable and SOCK, PORT, SLUICE_CONF in the environment.
adv_py() {
    local u=$1
    shift
    (cd "$WORK/$u" && runuser -u "$u" -- env SLUICE_CONF="$SLUICE_CONF" \
        SOCK="$SOCK" PORT="$PORT" PYTHONPATH="$WORK" "$ADV_PY" - "$@")
}

# ms_now: milliseconds since the epoch.
ms_now() {
    echo $(($(date +%s%N) / 1000000))
}

# still_serving WHAT: the controller is the same process, and GOOD's
# sbatch and squeue each answer within a second (ADV_SERVE_MS; three under
# the sanitizers, whose CLI alone takes a good part of one).
if [ "${SLUICE_BUILD:-build}" = build-san ]; then
    ADV_SERVE_MS=${ADV_SERVE_MS:-3000}
fi
ADV_SERVE_MS=${ADV_SERVE_MS:-1000}

# The controller's resident memory under an attack must stay below
# ADV_RSS_MB: 200 MB (the issue's bound); under the sanitizers 1 GiB, since
# ASan's redzones and its quarantine of freed blocks keep every refused
# frame's memory resident for a while.
if [ "${SLUICE_BUILD:-build}" = build-san ]; then
    ADV_RSS_MB=${ADV_RSS_MB:-1024}
fi
ADV_RSS_MB=${ADV_RSS_MB:-200}
still_serving() {
    local t0 t1 id q
    is "$(cat "$DIR/pids/sluicectld.pid" 2>/dev/null)" "$CTLD_PID0" \
        "$1: the controller is the same process"
    if ! kill -0 "$CTLD_PID0" 2>/dev/null; then
        not_ok "$1: the controller is alive"
        return
    fi
    t0=$(ms_now)
    id=$(as_user "$GOOD" sbatch --parsable -H -p dev -t 1 --wrap true 2>&1)
    t1=$(ms_now)
    if [[ "$id" =~ ^[0-9]+$ ]] && [ $((t1 - t0)) -lt "$ADV_SERVE_MS" ]; then
        ok "$1: another user's sbatch answers ($((t1 - t0)) ms)"
    else
        not_ok "$1: another user's sbatch answers within $ADV_SERVE_MS ms"
        echo "#   $((t1 - t0)) ms: $id"
    fi
    t0=$(ms_now)
    q=$(as_user "$GOOD" squeue -h -j "$id" -o %i 2>&1)
    t1=$(ms_now)
    if [ "$q" = "$id" ] && [ $((t1 - t0)) -lt "$ADV_SERVE_MS" ]; then
        ok "$1: another user's squeue answers ($((t1 - t0)) ms)"
    else
        not_ok "$1: another user's squeue answers within $ADV_SERVE_MS ms"
        echo "#   $((t1 - t0)) ms: $q"
    fi
    [[ "$id" =~ ^[0-9]+$ ]] && scancel "$id" >/dev/null 2>&1
}
