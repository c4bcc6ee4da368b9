#!/usr/bin/env bash
# The terminal harness of the interactive tests (lib.sh's tmux helpers),
# on a plain shell without a cluster: the prompt, a command's output, the
# size a program sees and its change on a window resize, Ctrl-C to the
# foreground process, Ctrl-Z, a nested shell's exit status, and the
# server gone afterwards.  When t93/t94 fail, this says whether the
# harness or the feature is at fault.
. "$(dirname "$0")/lib.sh"

tmux_need
WORK=$(mktemp -d /tmp/sluice-tmux.XXXXXX)
trap 'tmux_stop; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
tmux_start
if tmux_wait 5 '^local[$]'; then ok "the shell's prompt appears"; else not_ok "the shell's prompt appears"; fi
pid=$TMUX_PID

tmux_type 'echo "sum $((40 + 2))"; tty'
tmux_wait 5 '^sum 42$' && ok "a typed command's output" || not_ok "a typed command's output"
like "$(tmux_line '^/dev/' 'sum 42')" '^/dev/pts/[0-9]+$' "the shell runs on a pseudo-terminal"

tmux_type 'stty size'
tmux_wait 5 '^40 120$' 'stty size$' && ok "stty size: 40 rows, 120 columns" ||
    not_ok "stty size: 40 rows, 120 columns"
tmux_resize 100 30
tmux_type 'stty size'
tmux_wait 5 '^30 100$' 'stty size$' && ok "after resize-window: 30 rows, 100 columns" ||
    not_ok "after resize-window: 30 rows, 100 columns"

tmux_type 'stty -a >stty.before; sleep 100'
sleep 0.5
tmux_keys C-c
tmux_type 'echo "back $((6 * 7))"'
tmux_wait 5 '^back 42$' && ok "Ctrl-C ends sleep 100, the prompt is back" ||
    not_ok "Ctrl-C ends sleep 100, the prompt is back"

tmux_type 'sleep 101'
sleep 0.5
tmux_keys C-z
tmux_wait 5 'Stopped +sleep 101' && ok "Ctrl-Z stops the foreground job" ||
    not_ok "Ctrl-Z stops the foreground job"
tmux_type 'kill -KILL %1'
tmux_type 'sleep 102'
sleep 0.5
tmux_keys 'C-\'
tmux_wait 5 '^Quit' 'sleep 102$' && ok "Ctrl-\\ quits the foreground job" ||
    not_ok "Ctrl-\\ quits the foreground job"
tmux_type 'echo "exported PS1: ${PS1@a}"'
tmux_wait 5 '^exported PS1: $' && ok "the local prompt is not exported (a remote shell would inherit it)" ||
    not_ok "the local prompt is not exported (a remote shell would inherit it)"

# a nested shell that changes the terminal's modes and exits 7
tmux_type 'bash --norc --noprofile -i'
tmux_type 'old=$(stty -g); stty raw -echo; stty "$old"; exit 7'
tmux_type 'rc=$?; stty -a >stty.after; echo "nested rc=$rc"'
tmux_wait 5 '^nested rc=7$' && ok "a nested shell's exit 7 seen in \$?" ||
    not_ok "a nested shell's exit 7 seen in \$?"
is "$(cat stty.after 2>&1)" "$(cat stty.before)" "stty -a before and after are identical"

tmux_stop
wait_for 5 eval '! kill -0 '"$pid"
check=$(kill -0 "$pid" 2>/dev/null && echo alive)
is "$check" "" "tmux_stop: the server is gone"
finish
