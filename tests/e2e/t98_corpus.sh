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
T0=$(date +%s)

# meta FILE KEY: the values of FILE's "# corpus-KEY: " lines, one a line.
meta() {
    sed -n "s/^# corpus-$2: //p" "$1"
}

# subst TEXT NAME: @JOB@ and @USER@ replaced.
subst() {
    local s=${1//@JOB@/${ID[$2]}}
    printf '%s' "${s//@USER@/$ME}"
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
for f in "${SCRIPTS[@]}"; do
    base=$(basename "$f")
    name=${base%.sh}
    NAMES+=("$name")
    dir=$(meta "$f" dir)
    dir=$WORK/${dir:-$name}
    JDIR[$name]=$dir
    TASKS[$name]=$(meta "$f" tasks)
    mkdir -p "$dir"
    while IFS= read -r line; do
        [ -n "$line" ] && (cd "$dir" && bash -c "$line")
    done < <(meta "$f" setup)
    sed "s|@JOBDIR@|$dir|g" "$f" >"$dir/$base"
    args=()
    after=$(meta "$f" after)
    [ -n "$after" ] && args+=("--dependency=afterok:${ID[$after]}")
    # shellcheck disable=SC2207
    args+=($(meta "$f" args))
    out=$dir/sbatch.$name.out
    err=$dir/sbatch.$name.err
    if [[ " ${args[*]} " == *" --wait "* ]]; then
        # sbatch blocks: in the background, its status and the job's state
        # at its return written down for later
        WAITF[$name]=$dir/wait.$name
        (
            cd "$dir" && CORPUS_SUBMIT_ENV=present CORPUS_SUBMIT_EPOCH=$(date +%s) \
                sbatch "${args[@]}" "$base" >"$out" 2>"$err"
            rc=$?
            jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
            echo "rc=$rc state=$(job_state "$jid")" >"${WAITF[$name]}"
        ) &
        wait_for 10 grep -q '^Submitted batch job' "$out"
        rc=0
    else
        (cd "$dir" && CORPUS_SUBMIT_ENV=present CORPUS_SUBMIT_EPOCH=$(date +%s) \
            sbatch "${args[@]}" "$base" >"$out" 2>"$err")
        rc=$?
    fi
    quiet=$(meta "$f" quiet)
    if [ -n "$quiet" ] && [ "$rc" -eq 0 ]; then
        is "$(cat "$out")" "" "$name: sbatch --quiet prints nothing"
        ID[$name]=$(squeue -h -t all -n "$quiet" -o %i | head -1)
    else
        ID[$name]=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
    fi
    if [ "$rc" -eq 0 ] && [ -n "${ID[$name]}" ]; then
        ok "$name: accepted (job ${ID[$name]})"
    else
        not_ok "$name: accepted"
        sed 's/^/#   sbatch: /' "$out" "$err"
    fi
    [ -s "$err" ] && sed "s/^/# $name stderr: /" "$err"
done

# --- wait for all of them ------------------------------------------------------
# ended NAME: the job (every task of an array) is over.
ended() {
    local id=${ID[$1]} st
    [ -n "$id" ] || return 0
    st=$(squeue -h -t all -r -j "$id" -o %T 2>/dev/null)
    [ -n "$st" ] || return 1
    [ -z "${TASKS[$1]}" ] || [ "$(echo "$st" | wc -l)" -ge "${TASKS[$1]}" ] || return 1
    ! echo "$st" | grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|DEADLINE|PREEMPTED|BOOT_FAIL)$'
}
all_ended() {
    local n
    for n in "${NAMES[@]}"; do ended "$n" || return 1; done
    return 0
}
wait_for 85 all_ended
is "$(all_ended && echo yes)" yes "every job ended within 85 s ($(($(date +%s) - T0)) s after the first submission)"
for n in "${NAMES[@]}"; do
    ended "$n" || echo "# $n (job ${ID[$n]}) has not ended: $(squeue -h -t all -r -j "${ID[$n]}" -o '%i %T %r' | tr '\n' ' ')"
done
# the batch steps' output is written by the time the job has ended, but
# the mails are sent by the controller after the state change
sleep 1

# --- check each -----------------------------------------------------------------
for f in "${SCRIPTS[@]}"; do
    name=$(basename "$f" .sh)
    id=${ID[$name]}
    dir=${JDIR[$name]}
    [ -n "$id" ] || continue
    st=$(squeue -h -t all -r -j "$id" -o %T | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = " " }')
    want=${TASKS[$name]:-1}
    is "$st" "COMPLETED x$want" "$name: ${want} COMPLETED"
    # the output: every file of its directory but the scripts and sbatch's own
    text=$(find "$dir" -type f ! -name '*.sh' ! -name 'sbatch.*' ! -name 'wait.*' \
        -exec cat {} + 2>/dev/null)
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        p=$(subst "$p" "$name")
        if [ -f "$dir/$p" ]; then ok "$name: output file $p"; else
            not_ok "$name: output file $p"
            echo "#   files: $(cd "$dir" && find . -type f ! -name '*.sh' | sort | tr '\n' ' ')"
        fi
    done < <(meta "$f" file)
    tag=$(meta "$f" expect | sed -n 's/^^\{0,1\}CORPUS-OK \([a-z0-9_]*\).*/\1/p' | head -1)
    lines=$(meta "$f" lines)
    if [ -n "$tag" ]; then
        is "$(printf '%s\n' "$text" | grep -cE "^CORPUS-OK $tag( |\$)")" \
            "${lines:-1}" "$name: ${lines:-1} CORPUS-OK $tag line(s)"
    fi
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        re=$(subst "$re" "$name")
        if printf '%s\n' "$text" | grep -Eq -- "$re"; then ok "$name: output /$re/"; else
            not_ok "$name: output /$re/"
            printf '%s\n' "$text" | grep -v '^$' | tail -8 | sed 's/^/#   | /'
        fi
    done < <(meta "$f" expect)
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        if printf '%s\n' "$text" | grep -Eq -- "$re"; then not_ok "$name: no output /$re/"; else
            ok "$name: no output /$re/"
        fi
    done < <(meta "$f" absent)
    while IFS= read -r c; do
        [ -n "$c" ] || continue
        c=$(subst "$c" "$name")
        cmd=${c%% ~ *}
        re=${c#* ~ }
        like "$(eval "$cmd" 2>&1)" "$re" "$name: $cmd ~ /$re/"
    done < <(meta "$f" cmd)
    while IFS= read -r re; do
        [ -n "$re" ] || continue
        re=$(subst "$re" "$name")
        wait_for 5 grep -Eq -- "$re" "$MAILLOG"
        like "$(cat "$MAILLOG" 2>/dev/null)" "$re" "$name: MailProg got /$re/"
    done < <(meta "$f" mail)
    if [ -n "${WAITF[$name]:-}" ]; then
        wait_for 5 test -s "${WAITF[$name]}"
        is "$(cat "${WAITF[$name]}" 2>/dev/null)" "rc=0 state=COMPLETED" \
            "$name: sbatch --wait returned 0 once the job had COMPLETED"
    fi
done

# --- the same jobs in sacct: one row per job and per array task -------------
want=0
for n in "${NAMES[@]}"; do
    [ -n "${ID[$n]}" ] && want=$((want + ${TASKS[$n]:-1}))
done
ids=$(for n in "${NAMES[@]}"; do [ -n "${ID[$n]}" ] && printf '%s,' "${ID[$n]}"; done)
is "$(sacct -X -n -P -j "${ids%,}" -o State | grep -c '^COMPLETED$')" "$want" \
    "sacct -X: a COMPLETED row for each of the $want jobs and array tasks"
wait
finish
