#!/usr/bin/env bash
# Checks shared by the interactive tests (t93_interactive, t94_salloc),
# sourced after lib.sh and tmux_start: a pane that shows a line in time,
# a remote shell's prompt, the local prompt back with the command's exit
# status and the terminal's modes unchanged.

check() {
    if [ -n "$1" ]; then ok "$2"; else not_ok "$2"; fi
}
# waited SECONDS REGEX [AFTER] NAME: ok when the pane shows REGEX in time.
waited() {
    local name=${*: -1}
    if [ $# -ge 4 ]; then
        tmux_wait "$1" "$2" "$3" && ok "$name" || not_ok "$name"
    else
        tmux_wait "$1" "$2" && ok "$name" || not_ok "$name"
    fi
}
# session SECONDS COMMAND NAME: ok when COMMAND's remote shell shows its
# prompt; else not_ok, back at the local prompt, and 1 (the section ends).
session() {
    if tmux_session "$1" "$2"; then
        ok "$3"
    else
        not_ok "$3"
        return 1
    fi
}
state_of() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(state_of "$1")" = "$2" ]; }
LOCAL=$TMUX_LOCAL
# back_local WHAT AFTER: the local prompt below AFTER; then the command's
# exit status (printed as "WHAT rc=N") and the terminal's modes
# (stty.after, compared with stty.before).
back_local() {
    waited 20 "$LOCAL" "$2" "$1: the local prompt is back"
    tmux_type "rc=\$?; stty -a >stty.after; echo \"$1 rc=\$rc\""
    tmux_wait 5 "^$1 rc=[0-9]+\$" >/dev/null
    is "$(cat stty.after 2>&1)" "$(cat stty.before)" \
        "$1: the local terminal is back in its modes (stty -a before and after identical)"
    rm -f stty.after
}
# rc_of WHAT: the status back_local printed for WHAT.
rc_of() { tmux_line "^$1 rc=[0-9]+\$" | sed 's/.* rc=//'; }
