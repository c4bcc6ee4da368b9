#!/usr/bin/env bash
# The job-script corpus (tests/e2e/corpus/*.sh): scripts of the kinds people
# publish -- single-GPU training, torchrun and DeepSpeed launchers, MPI
# `srun -n`, arrays and sweeps, mail, --exclusive, --constraint,
# --open-mode, signals with traps, self-requeue, comments and WCKeys, a
# dependency chain, and the headers submitit and dask-jobqueue generate --
# each submitted unchanged against a four-node cluster with count-only GPUs
# (conf/corpus.conf, MailProg replaced by a recorder), all at once.  Each
# must be accepted (Slurm's "Submitted batch job N"), end COMPLETED and
# print its expected lines.
#
# What a script expects is in comment lines it carries (plain comments to
# Slurm; @JOB@ is its job id, @USER@ the submitting user):
#   # corpus-expect: ERE    a line of its output files matches
#   # corpus-absent: ERE    no line does
#   # corpus-lines: N       N lines "CORPUS-OK TAG ..." (default 1; TAG from
#                           the first corpus-expect naming one)
#   # corpus-file: PATH     this output file exists (relative to its dir)
#   # corpus-tasks: N       an array of N tasks, each COMPLETED
#   # corpus-setup: SHELL   run in its directory before sbatch ($CORPUS is
#                           the corpus directory)
#   # corpus-cmd: CMD ~ ERE after the end, CMD's output matches ERE
#   # corpus-mail: ERE      a mail MailProg was given matches (its argv)
#   # corpus-after: NAME    submitted with --dependency=afterok:<NAME's id>
#   # corpus-dir: DIR       the directory it shares (default: its own name)
#   # corpus-args: ARGS     sbatch command-line options (--wait: sbatch
#                           must block until the end and exit 0)
#   # corpus-quiet: NAME    sbatch prints nothing (#SBATCH --quiet); the
#                           id is looked up by the job name
# A script is copied into its directory with @JOBDIR@ replaced by that
# directory (the absolute paths submitit and dask-jobqueue write) and
# submitted from there, with CORPUS_SUBMIT_ENV=present and
# CORPUS_SUBMIT_EPOCH (now) in sbatch's environment.
. "$(dirname "$0")/lib.sh"

CORPUS=$E2E_ROOT/tests/e2e/corpus
export CORPUS
CONFDIR=$(mktemp -d /tmp/sluice-e2e-conf.XXXXXX)
chmod 755 "$CONFDIR"
MAILLOG=$CONFDIR/mail.log
# The MailProg recorder: one line per mail, its arguments as given
# (Slurm: -s SUBJECT RECIPIENT), the body read and dropped.
cat >"$CONFDIR/mail.sh" <<EOF
#!/bin/sh
{ printf 'MAIL'; for a in "\$@"; do printf ' %s' "\$a"; done; echo; } >>"$MAILLOG"
cat >/dev/null
exit 0
EOF
chmod 755 "$CONFDIR/mail.sh"
sed "s|^MailProg=.*|MailProg=$CONFDIR/mail.sh|" \
    "$E2E_ROOT/tests/e2e/conf/corpus.conf" >"$CONFDIR/corpus.conf"
cluster_start "$CONFDIR/corpus.conf"
trap 'cluster_stop; rm -rf "$CONFDIR"' EXIT
ME=$(id -un)
T0=$EPOCHSECONDS

# load_meta NAME FILE: FILE's "# corpus-KEY: VALUE" lines into
# META[NAME|KEY] (values one a line), with bash alone: the machine may be
# loaded, and each process started costs.
declare -A META
load_meta() {
    local line k
    while IFS= read -r line; do
        [[ $line == "# corpus-"*": "* ]] || continue
        k=${line#"# corpus-"}
        k=${k%%: *}
        META[$1|$k]+=${line#*: }$'\n'
    done <"$2"
}

# meta VAR NAME KEY: VAR is its first value (no subshell).
meta() {
    local _mv=${META[$2|$3]:-}
    printf -v "$1" '%s' "${_mv%%$'\n'*}"
}

# subst TEXT NAME: S is TEXT with @JOB@ and @USER@ replaced.
subst() {
    S=${1//@JOB@/${ID[$2]:-}}
    S=${S//@USER@/$ME}
}

# has_line ERE: a line of OUT (an array) matches (bash's regex, no process).
has_line() {
    local l
    for l in "${OUT[@]}"; do
        [[ $l =~ $1 ]] && return 0
    done
    return 1
}

declare -A ID JDIR TASKS WAITF
NAMES=()
SCRIPTS=("$CORPUS"/[0-9]*.sh)
# CORPUS_ONLY=ERE: only the scripts whose names match (a quicker look at a
# few; the count check below then fails, as it should)
if [ -n "${CORPUS_ONLY:-}" ]; then
    mapfile -t SCRIPTS < <(printf '%s\n' "${SCRIPTS[@]}" | grep -E -- "$CORPUS_ONLY")
fi
is "$([ "${#SCRIPTS[@]}" -ge 40 ] && echo yes)" yes \
    "the corpus has at least 40 job scripts (${#SCRIPTS[@]})"

# --- submit every script, as written -----------------------------------------
# submit NAME: sbatch in its directory, in the background (the machine may
# be loaded: the submissions overlap); its stdout and stderr, and for
# --wait its status and the job's state at its return, in files.
submit_bg() {
    local name=$1 base=${SUBMIT_BASE[$1]} dir=${JDIR[$1]} args=()
    local after v
    meta after "$name" after
    [ -n "$after" ] && args+=("--dependency=afterok:${ID[$after]:-}")
    meta v "$name" args
    # shellcheck disable=SC2206
    args+=($v)
    (
        cd "$dir" || exit 1
        CORPUS_SUBMIT_EPOCH=$EPOCHSECONDS sbatch "${args[@]}" "$base" \
            >"sbatch.$name.out" 2>"sbatch.$name.err"
        echo "$?" >"sbatch.$name.rc"
        if [[ " ${args[*]} " == *" --wait "* ]]; then
            jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "sbatch.$name.out")
            echo "rc=$(cat "sbatch.$name.rc") state=$(job_state "$jid")" >"wait.$name"
        fi
    ) &
    SUBMIT_PID[$name]=$!
}

# collect NAME: its job id (from sbatch's "Submitted batch job N"), and
# whether it was accepted.  A --wait submission counts once it printed
# its id.
collect() {
    local name=$1 dir=${JDIR[$1]} out rc quiet v
    out=$dir/sbatch.$name.out
    meta v "$name" args
    if [[ " $v " == *" --wait "* ]]; then
        WAITF[$name]=$dir/wait.$name
        wait_for 10 eval "grep -q '^Submitted batch job' '$out' || ! kill -0 ${SUBMIT_PID[$name]}"
    else
        wait "${SUBMIT_PID[$name]}"
    fi
    rc=
    read -r rc <"$dir/sbatch.$name.rc" 2>/dev/null
    out_text=
    IFS= read -r -d '' out_text <"$out"
    out_text=${out_text%$'\n'}
    meta quiet "$name" quiet
    if [ -n "$quiet" ] && [ "$rc" = 0 ]; then
        is "$out_text" "" "$name: sbatch --quiet prints nothing"
        ID[$name]=$(squeue -h -t all -n "$quiet" -o %i | head -1)
    elif [[ $out_text =~ ^Submitted\ batch\ job\ ([0-9]+)$ ]]; then
        ID[$name]=${BASH_REMATCH[1]}
    fi
    if [ -n "${ID[$name]:-}" ] && [ "${rc:-0}" = 0 ]; then
        ok "$name: accepted (job ${ID[$name]})"
        [ -s "$dir/sbatch.$name.err" ] && sed "s/^/# $name stderr: /" "$dir/sbatch.$name.err"
    else
        not_ok "$name: accepted"
        sed 's/^/#   sbatch: /' "$out" "$dir/sbatch.$name.err"
    fi
}

declare -A SUBMIT_BASE SUBMIT_PID
export CORPUS_SUBMIT_ENV=present
for f in "${SCRIPTS[@]}"; do
    base=${f##*/}
    name=${base%.sh}
    NAMES+=("$name")
    SUBMIT_BASE[$name]=$base
    load_meta "$name" "$f"
    meta dir "$name" dir
    dir=$WORK/${dir:-$name}
    JDIR[$name]=$dir
    meta v "$name" tasks
    TASKS[$name]=$v
    mkdir -p "$dir"
    while IFS= read -r line; do
        [ -n "$line" ] && (cd "$dir" && eval "$line")
    done <<<"${META[$name|setup]:-}"
    IFS= read -r -d '' text <"$f"
    printf '%s' "${text//@JOBDIR@/$dir}" >"$dir/$base"
done
echo "# ${#NAMES[@]} directories prepared in $((EPOCHSECONDS - T0)) s"
# the scripts without a dependency at once, then those that follow them
for name in "${NAMES[@]}"; do
    [ -z "${META[$name|after]:-}" ] && submit_bg "$name"
done
for name in "${NAMES[@]}"; do
    [ -z "${META[$name|after]:-}" ] && collect "$name"
done
for name in "${NAMES[@]}"; do
    [ -n "${META[$name|after]:-}" ] && submit_bg "$name" && collect "$name"
done
echo "# ${#SCRIPTS[@]} scripts submitted in $((EPOCHSECONDS - T0)) s"

# --- wait for all of them ------------------------------------------------------
# states: every job's and array task's state, "ID STATE" (array tasks
# under their array's id), from one squeue call.
declare -A STATES
states() {
    local id st
    STATES=()
    while read -r id st; do
        STATES[${id%%_*}]+="$st "
    done < <(squeue -h -t all -r -o '%i %T' 2>/dev/null)
}
# all_ended: every job (every task of an array) is over.
all_ended() {
    local n st want
    states
    for n in "${NAMES[@]}"; do
        [ -n "${ID[$n]:-}" ] || continue
        st=${STATES[${ID[$n]:-}]:-}
        [ -n "$st" ] || return 1
        want=${TASKS[$n]:-1}
        set -- $st
        [ "$#" -ge "$want" ] || return 1
        [[ " $st" =~ \ (PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|REQUEUE_HOLD|REQUEUE_FED|SIGNALING|STAGE_OUT|STOPPED) ]] && return 1
    done
    return 0
}
wait_for 85 all_ended
is "$(all_ended && echo yes)" yes "every job ended within 85 s ($((EPOCHSECONDS - T0)) s after the first submission)"
for n in "${NAMES[@]}"; do
    [ -n "${ID[$n]:-}" ] || continue
    case " ${STATES[${ID[$n]:-}]:-} " in
    *" PENDING "* | *" RUNNING "* | "  ") echo "# $n (job ${ID[$n]:-}) has not ended: ${STATES[${ID[$n]:-}]:-}" ;;
    esac
done
echo "# the last to start and to end (sacct JobID JobName Submit Start End):"
sacct -X -n -P -o JobID,JobName,Submit,Start,End 2>/dev/null | sort -t'|' -k4 |
    tail -3 | sed 's/^/#   /'
sacct -X -n -P -o JobID,JobName,Submit,Start,End 2>/dev/null | sort -t'|' -k5 |
    tail -3 | sed 's/^/#   /'
# the batch steps' output is written by the time the job has ended, but
# the mails are sent by the controller after the state change
sleep 1
states

# --- check each -----------------------------------------------------------------
for f in "${SCRIPTS[@]}"; do
    name=${f##*/}
    name=${name%.sh}
    id=${ID[$name]:-}
    dir=${JDIR[$name]}
    [ -n "$id" ] || continue
    want=${TASKS[$name]:-1}
    got=${STATES[$id]:-}
    set -- $got
    if [ "$#" -eq "$want" ] && [ -z "${got//COMPLETED /}" ]; then
        ok "$name: $want COMPLETED"
    else
        not_ok "$name: $want COMPLETED"
        echo "#   got: ${got:-nothing}"
    fi
    # the output: every file of its directory but the scripts and sbatch's own
    text=$(find "$dir" -type f ! -name '*.sh' ! -name 'sbatch.*' ! -name 'wait.*' \
        -exec cat {} + 2>/dev/null)
    mapfile -t OUT <<<"$text"
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        subst "$p" "$name"
        p=$S
        if [ -f "$dir/$p" ]; then ok "$name: output file $p"; else
            not_ok "$name: output file $p"
            echo "#   files: $(cd "$dir" && find . -type f ! -name '*.sh' ! -name 'sbatch.*' | sort | tr '\n' ' ')"
        fi
    done <<<"${META[$name|file]:-}"
    tag=
    while IFS= read -r re; do
        if [[ $re =~ ^\^?CORPUS-OK\ ([a-z0-9_]+) ]]; then
            tag=${BASH_REMATCH[1]}
            break
        fi
    done <<<"${META[$name|expect]:-}"
    meta lines "$name" lines
    if [ -n "$tag" ]; then
        n=0
        for l in "${OUT[@]}"; do
            [[ $l == "CORPUS-OK $tag" || $l == "CORPUS-OK $tag "* ]] && n=$((n + 1))
        done
        is "$n" "${lines:-1}" "$name: ${lines:-1} CORPUS-OK $tag line(s)"
    fi
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        subst "$re" "$name"
        re=$S
        if has_line "$re"; then ok "$name: output /$re/"; else
            not_ok "$name: output /$re/"
            printf '%s\n' "$text" | grep -v '^$' | tail -8 | sed 's/^/#   | /'
        fi
    done <<<"${META[$name|expect]:-}"
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        if has_line "$re"; then not_ok "$name: no output /$re/"; else
            ok "$name: no output /$re/"
        fi
    done <<<"${META[$name|absent]:-}"
    while IFS= read -r c; do
        [ -n "$c" ] || continue
        subst "$c" "$name"
        c=$S
        cmd=${c%% ~ *}
        re=${c#* ~ }
        like "$(eval "$cmd" 2>&1)" "$re" "$name: $cmd ~ /$re/"
    done <<<"${META[$name|cmd]:-}"
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        subst "$re" "$name"
        re=$S
        wait_for 5 grep -Eq -- "$re" "$MAILLOG"
        like "$(cat "$MAILLOG" 2>/dev/null)" "$re" "$name: MailProg got /$re/"
    done <<<"${META[$name|mail]:-}"
    if [ -n "${WAITF[$name]:-}" ]; then
        wait_for 5 test -s "${WAITF[$name]}"
        is "$(cat "${WAITF[$name]}" 2>/dev/null)" "rc=0 state=COMPLETED" \
            "$name: sbatch --wait returned 0 once the job had COMPLETED"
    fi
done

# --- the same jobs in sacct: one row per job and per array task -------------
want=0
for n in "${NAMES[@]}"; do
    [ -n "${ID[$n]:-}" ] && want=$((want + ${TASKS[$n]:-1}))
done
ids=$(for n in "${NAMES[@]}"; do [ -n "${ID[$n]:-}" ] && printf '%s,' "${ID[$n]:-}"; done)
is "$(sacct -X -n -P -j "${ids%,}" -o State | grep -c '^COMPLETED$')" "$want" \
    "sacct -X: a COMPLETED row for each of the $want jobs and array tasks"
wait
finish
