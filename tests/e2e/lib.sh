# Helpers for the end-to-end tests (sourced by tests/e2e/tNN_*.sh): TAP
# lines, a private local cluster started with `sluice up` and always taken
# down again, and waits on job states.
#
#   . "$(dirname "$0")/lib.sh"
#   cluster_start etc/quant-cluster.conf     # sets DIR, SLUICE_CONF, WORK
#   ok "what" / not_ok "what" / is GOT WANT "what" / like GOT REGEX "what"
#   finish                                    # exit status from the results

set -u
E2E_ROOT=${E2E_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
E2E_BUILD=${SLUICE_BUILD:-build}
E2E_BIN=$E2E_ROOT/$E2E_BUILD/bin
PATH=$E2E_BIN:$PATH
export PATH
unset SLUICE_CONF
TAP_N=0
TAP_FAILED=0
DIR=
WORK=

ok() {
    TAP_N=$((TAP_N + 1))
    echo "ok $TAP_N - $*"
}

not_ok() {
    TAP_N=$((TAP_N + 1))
    TAP_FAILED=$((TAP_FAILED + 1))
    echo "not ok $TAP_N - $*"
}

# is GOT WANT NAME: exact comparison.
is() {
    if [ "$1" = "$2" ]; then
        ok "$3"
    else
        not_ok "$3"
        printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
    fi
}

# like GOT REGEX NAME: extended regular expression match.
like() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then
        ok "$3"
    else
        not_ok "$3"
        printf '#   got:  %s\n#   want: /%s/\n' "$1" "$2"
    fi
}

# skip_all REASON: the whole script is skipped (counts as one pass).
skip_all() {
    echo "ok 1 # SKIP $*"
    exit 0
}

# The daemons must be built for any of this.
need_daemons() {
    for b in sluice sluicectld sluiced; do
        [ -x "$E2E_BIN/$b" ] || skip_all "$E2E_BIN/$b is not built"
    done
}

# cluster_stop: cancel jobs, stop the daemons, show logs after failures,
# remove the directory.  Runs from the EXIT trap, so also after a crash.
cluster_stop() {
    if [ -n "$TMUX_SOCK" ] && [ "$TAP_FAILED" -ne 0 ]; then
        echo "# --- the terminal (tmux pane, last 30 lines)"
        tmux_dump 30
    fi
    tmux_stop
    [ -n "$DIR" ] && [ -d "$DIR" ] || return 0
    sluice down --cancel --dir "$DIR" >/dev/null 2>&1
    cluster_kill_left
    if [ "$TAP_FAILED" -ne 0 ]; then
        for f in "$DIR"/log/*.log "$DIR"/log/*.out "$DIR"/san/*; do
            [ -s "$f" ] || continue
            echo "# --- $f (last 15 lines)"
            tail -15 "$f" | sed 's/^/#   /'
        done
        echo "# --- warnings of every daemon (last 40)"
        grep -h -E ' (warn|fatal):' "$DIR"/log/*.log 2>/dev/null |
            tail -40 | sed 's/^/#   /'
    fi
    # E2E_KEEP=1 keeps the directory (logs, spool) for a look afterwards.
    if [ "${E2E_KEEP:-0}" = 1 ]; then
        echo "# kept $DIR"
    else
        rm -rf "$DIR"
    fi
    DIR=
}

# cluster_start CONFIG: a private cluster in a fresh directory; exports
# SLUICE_CONF and cds into $WORK, where jobs write their output.
cluster_start() {
    local out
    need_daemons
    DIR=$(mktemp -d /tmp/sluice-e2e.XXXXXX)
    trap cluster_stop EXIT
    # Sanitizer reports of every process (supervisors have no stderr) go to
    # $DIR/san/, which cluster_gone checks; other builds ignore these.
    mkdir -p "$DIR/san"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$DIR/san/asan"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$DIR/san/ubsan"
    trap 'exit 130' INT TERM
    if ! out=$(sluice up -f "$1" --dir "$DIR" 2>"$DIR/up.err"); then
        not_ok "sluice up -f $1"
        sed 's/^/#   /' "$DIR/up.err"
        exit 1
    fi
    eval "$out"
    export SLUICE_CONF
    WORK=$DIR/work
    mkdir -p "$WORK"
    cd "$WORK" || exit 1
}

# wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds.
wait_for() {
    local limit=$(($1 * 10)) i=0
    shift
    while ! "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -ge "$limit" ] && return 1
        sleep 0.1
    done
    return 0
}

# job_state ID: the job's state (PENDING, RUNNING, COMPLETED, ...).
job_state() {
    squeue -h -t all -j "$1" -o %T 2>/dev/null
}

job_ended() {
    case $(job_state "$1") in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY)
        return 0 ;;
    esac
    return 1
}

# alive PID: the process exists and is not a zombie waiting for its
# (possibly lazy) reaper.
alive() {
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    case $st in
    Z*) return 1 ;;
    esac
    return 0
}

# prio_of ID: the job's priority as sprio prints it.
prio_of() {
    sprio -h -j "$1" -o '%Y' 2>/dev/null | tr -d ' '
}

# higher A B: job A's priority is above job B's.
higher() {
    local a b
    a=$(prio_of "$1")
    b=$(prio_of "$2")
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt "$b" ]
}

# submit ARGS...: sbatch --parsable, printing the job id.
submit() {
    sbatch --parsable "$@"
}

# check_private_modes: what the daemons and `sluice up` keep in $DIR
# (state: the database with every job's script and environment; spool:
# scripts and launch requests; logs, pid files, the key) is readable by
# nobody else.  Two things are, by design: the controller's socket (0666:
# every user submits through it) and a job's "preempted" file (0644: the
# job reads it, docs/preemption.md).  Directories are at most 0711.
check_private_modes() {
    local found
    [ -n "$DIR" ] && [ -d "$DIR/state" ] || return 0
    found=$(find "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/pids" \
        "$DIR/sluice.key" -perm /o+r ! -type s ! -name preempted \
        -printf '%M %u %p\n' 2>/dev/null)
    if [ -n "$found" ]; then
        not_ok "nothing in the cluster's state, spool, logs or pid files is readable by others"
        printf '%s\n' "$found" | head -20 | sed 's/^/#   /'
    else
        ok "nothing in the cluster's state, spool, logs or pid files is readable by others"
    fi
}

finish() {
    check_private_modes
    echo "1..$TAP_N"
    [ "$TAP_FAILED" -eq 0 ]
}

# cluster_procs: the processes (other than this shell) whose command line
# or working directory lies in $DIR: daemons, supervisors, jobs.
cluster_procs() {
    local p pid
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = "$$" ] && continue
        if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "$DIR" ||
            case $(readlink "$p/cwd" 2>/dev/null) in
            "$DIR" | "$DIR"/*) true ;;
            *) false ;;
            esac; then
            echo "$pid $(tr '\0' ' ' 2>/dev/null <"$p/cmdline")"
        fi
    done
}

# cluster_kill_left: kill, by PID, what is left of the cluster after a
# failure (a job whose controller was down when it was cancelled, say), so
# that nothing outlives the test.
cluster_kill_left() {
    local pids i
    for i in 1 2 3; do
        pids=$(cd / && cluster_procs | cut -d' ' -f1)
        [ -n "$pids" ] || return 0
        [ "$i" -eq 1 ] && echo "# killing what is left of the cluster:" $pids
        # shellcheck disable=SC2086
        kill "-$([ "$i" -eq 3 ] && echo KILL || echo TERM)" $pids 2>/dev/null
        sleep 0.5
    done
}

# cluster_gone: sluice down --cancel, then check that nothing of the
# cluster is left running (the EXIT trap still removes the directory).
cluster_gone() {
    local left
    sluice down --cancel --dir "$DIR" >/dev/null 2>&1
    wait_for 15 eval '[ -z "$(cd / && cluster_procs)" ]'
    left=$(cd / && cluster_procs)
    is "$left" "" "sluice down --cancel leaves no process of the cluster"
    left=$(cd "$DIR/san" && ls)
    is "$left" "" "no sanitizer report from any process of the cluster"
}

# --- a real terminal: tmux ---------------------------------------------------
# The interactive tests drive a shell in a detached tmux session, as a user
# at a terminal would: a private server (socket $WORK/tmux.sock, no user
# configuration), one 120x40 window running bash without the user's rc
# files, the prompt "local$ ", in $WORK, with the test's environment (PATH to the
# build, SLUICE_CONF).  cluster_stop kills the server first, so that the
# EXIT trap takes it down even when the test fails half-way.
#
#   tmux_need                      # skips the script without tmux
#   tmux_start                     # after cluster_start (or with WORK set)
#   tmux_type 'srun -p dev --pty bash'   # the text, then Enter
#   tmux_keys C-c                  # keys by tmux's names (C-c, C-z, Enter)
#   tmux_wait 10 REGEX [AFTER]     # until a line matches REGEX (only lines
#                                  # below the last line matching AFTER)
#   tmux_session 20 'srun --pty bash'  # typed; 0 once its prompt shows
#   tmux_resize 100 30             # columns, rows
#   tmux_screen                    # the pane with its history, as text
#   tmux_stop
#
# Regexes are grep -E's (and awk's, for AFTER); write a literal $ as [$].
TMUX_SOCK=
TMUX_PID=
TMUX_T=e2e

tmux_need() {
    command -v tmux >/dev/null ||
        skip_all "tmux is not installed (scripts/deps.sh installs it)"
}

tmx() {
    tmux -S "$TMUX_SOCK" "$@"
}

# tmux_start [COMMAND ARGS...]: the session; without arguments the shell
# is bash without the user's rc files, its prompt "local$ " (not exported).
tmux_start() {
    TMUX_SOCK=$WORK/tmux.sock
    # history for the failure dumps; a dead pane stays for capture-pane
    printf '%s\n' 'set -g history-limit 5000' 'set -g remain-on-exit on' \
        >"$WORK/tmux.conf"
    # PS1 set, not exported: a remote shell started from this one (srun
    # --pty bash) must not inherit the local prompt
    printf '%s\n' "PS1='local\$ '" >"$WORK/local.bashrc"
    if [ $# -eq 0 ]; then
        set -- bash --rcfile "$WORK/local.bashrc" -i
    fi
    if ! env -u TMUX -u PS1 SHELL=/bin/bash \
        tmux -f "$WORK/tmux.conf" -S "$TMUX_SOCK" new-session -d \
        -s "$TMUX_T" -x 120 -y 40 -c "$WORK" -- "$@"; then
        not_ok "tmux new-session"
        exit 1
    fi
    TMUX_PID=$(tmx display-message -p '#{pid}' 2>/dev/null)
    # the shell's first prompt (or the command's first output)
    tmux_wait 10 '.' >/dev/null
}

tmux_stop() {
    [ -n "$TMUX_SOCK" ] || return 0
    tmx kill-server 2>/dev/null
    # a server that does not go (its socket removed, say): by its pid
    if [ -n "$TMUX_PID" ] && ! wait_for 2 eval "! kill -0 $TMUX_PID"; then
        kill -9 "$TMUX_PID" 2>/dev/null
    fi
    TMUX_SOCK=
    TMUX_PID=
}

# tmux_type TEXT: TEXT typed literally, then Enter.
tmux_type() {
    tmx send-keys -t "$TMUX_T" -l -- "$1" && tmx send-keys -t "$TMUX_T" Enter
}

tmux_keys() {
    tmx send-keys -t "$TMUX_T" "$@"
}

# tmux_screen: history and screen, wrapped lines joined, trailing blank
# lines dropped.
tmux_screen() {
    tmx capture-pane -p -J -S - -t "$TMUX_T" 2>/dev/null |
        awk '{ l[NR] = $0; if ($0 ~ /[^ ]/) n = NR }
             END { for (i = 1; i <= n; i++) print l[i] }'
}

# tmux_after AFTER: the lines below the last one matching AFTER (none
# while no line matches); the whole pane when AFTER is empty.
tmux_after() {
    if [ -z "$1" ]; then
        tmux_screen
        return
    fi
    # the regex through the environment: awk -v would eat its backslashes
    tmux_screen | TMUX_RE=$1 awk '{ l[NR] = $0; if ($0 ~ ENVIRON["TMUX_RE"]) last = NR }
        END { if (last) for (i = last + 1; i <= NR; i++) print l[i] }'
}

# tmux_wait SECONDS REGEX [AFTER]: 0 once the pane shows a line matching
# REGEX (below the last line matching AFTER); else 1, and the pane is
# shown as TAP comments.
tmux_wait() {
    local limit=$(($1 * 10)) i=0
    while ! tmux_after "${3:-}" | grep -Eq -- "$2"; do
        i=$((i + 1))
        if [ "$i" -ge "$limit" ]; then
            echo "# tmux: no line /$2/${3:+ below /$3/} within $1 s; the pane:"
            tmux_dump 40
            return 1
        fi
        sleep 0.1
    done
    return 0
}

# tmux_dump [N]: the pane's last N lines (default 40) as TAP comments.
tmux_dump() {
    tmux_screen | tail -"${1:-40}" | sed 's/^/#   | /'
}

# tmux_line REGEX [AFTER]: the first line matching REGEX (below AFTER).
tmux_line() {
    tmux_after "${2:-}" | grep -E -m1 -- "$1"
}

# A prompt that is not the local shell's (a shell started by srun --pty
# or salloc): ends in $ or # whatever the rc files make of it.
TMUX_PROMPT='^[$#] *$|^([^l]|l[^o]|lo[^c]|loc[^a]|loca[^l]|local[^$]).*[$#] *$'
TMUX_LOCAL='^local[$]'

# tmux_session SECONDS COMMAND: type COMMAND (which starts another shell:
# srun --pty bash, salloc) and wait for that shell's prompt below it.
# When COMMAND ends first: 1.  On a timeout, Ctrl-C (twice) and back to
# the local prompt, and 1.
tmux_session() {
    local after
    after="^local[$] $(printf '%s' "$2" | sed 's/[][\\.*^$+?(){}|/]/\\&/g')"
    tmux_type "$2"
    # the other shell's prompt, or the local one when COMMAND ended first
    if tmux_wait "$1" "$TMUX_PROMPT|$TMUX_LOCAL" "$after"; then
        tmux_after "$after" | grep -Eq -- "$TMUX_PROMPT" && return 0
        echo "# tmux: $2 ended without a prompt of its own:"
        tmux_after "$after" | tail -20 | sed 's/^/#   | /'
        return 1
    fi
    tmux_keys C-c
    sleep 0.5
    tmux_keys C-c
    tmux_wait 10 "$TMUX_LOCAL" "$after" >/dev/null ||
        { tmux_type exit && tmux_wait 10 "$TMUX_LOCAL" "$after" >/dev/null; }
    return 1
}

# tmux_resize COLS ROWS: the window's size (as a terminal emulator's
# window resized by its user; the pane's programs get SIGWINCH).
tmux_resize() {
    tmx resize-window -t "$TMUX_T" -x "$1" -y "$2"
}
