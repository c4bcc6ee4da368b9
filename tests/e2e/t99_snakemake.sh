#!/usr/bin/env bash
# A real workflow manager through its Slurm executor: Debian's snakemake
# (7.21) runs tests/e2e/snakemake/Snakefile (four simulations fanned out,
# each scored, one gather) with --slurm against a four-node cluster, as a
# user would type it.  It must finish, the outputs must be right and come
# from distinct Slurm jobs, and each job must be in sacct with the name,
# account and partition snakemake gave it.  Every Slurm command snakemake
# runs (on the submit side and inside the jobs) goes through a recorder
# that logs its arguments and execs the real one unchanged.
. "$(dirname "$0")/lib.sh"

command -v snakemake >/dev/null ||
    skip_all "snakemake is not installed (scripts/deps.sh installs it)"

cluster_start "$E2E_ROOT/tests/e2e/conf/corpus.conf"
# snakemake reads $USER for its sacct and sacctmgr calls
USER=${USER:-$(id -un)}
export USER

# --- an account for the user, as a site would have one ----------------------
sacctmgr -i add account proj >/dev/null 2>&1
sacctmgr -i add user "$USER" account=proj >/dev/null 2>&1
is "$(sacctmgr -n -P show assoc where user="$USER" format=Account | grep -cx proj)" 1 \
    "the user has an association with account proj"

# --- the recorder: $WORK/bin first in PATH (jobs inherit it: --export=ALL)
CALLS=$WORK/calls.log
mkdir -p "$WORK/bin"
for c in sbatch srun scancel scontrol squeue sinfo sacct sacctmgr; do
    cat >"$WORK/bin/$c" <<EOF
#!/bin/sh
printf '%s\n' "$c \$*" >>"$CALLS"
exec "$E2E_BIN/$c" "\$@"
EOF
    chmod 755 "$WORK/bin/$c"
done
PATH=$WORK/bin:$PATH

# --- the workflow ------------------------------------------------------------
mkdir -p "$WORK/wf"
cp "$E2E_ROOT/tests/e2e/snakemake/Snakefile" "$WORK/wf/"
cd "$WORK/wf" || exit 1
start=$SECONDS
timeout 150 snakemake --slurm \
    --default-resources slurm_partition=cpu slurm_account=proj \
    --jobs 4 --max-status-checks-per-second 1 --latency-wait 5 \
    >snakemake.log 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
    ok "snakemake --slurm ran the workflow to the end ($((SECONDS - start)) s)"
else
    not_ok "snakemake --slurm ran the workflow to the end (exit $rc after $((SECONDS - start)) s)"
    grep -E 'rror|failed|invalid|unrecognized' snakemake.log | sort | uniq -c |
        head -20 | sed 's/^/#   | /'
    tail -25 snakemake.log | sed 's/^/#   | /'
    for f in .snakemake/slurm_logs/*/*.log; do
        [ -f "$f" ] || continue
        grep -E 'error|Error' "$f" | head -3 | sed "s|^|#   $f: |"
    done
fi
like "$(grep -c . "$CALLS" 2>/dev/null)" '^[1-9]' "snakemake called Slurm commands"
echo "# the Slurm commands snakemake ran (argument values elided):"
sed -E 's/--wrap=.*/--wrap=.../; s/^(srun [^/]*)\/.*/\1.../; s/ [0-9]+$/ N/;
    s/_[0-9]+ / /; s|/[^ ]*|PATH|g' "$CALLS" 2>/dev/null |
    sort | uniq -c | sed 's/^/#   /'

# --- the results ---------------------------------------------------------------
is "$(sed -n 's/^total=//p' results/summary.txt 2>/dev/null)" 118 \
    "the gather rule summed the four scores (10+19+34+55)"
for s in 1 2 3 4; do
    like "$(cat "sims/$s.txt" 2>/dev/null | tr '\n' ' ')" \
        "^seed=$s job=[0-9]+ cpus=2 value=$((s * s * 100 + 7)) $" \
        "simulate seed=$s ran in a Slurm job with its 2 threads as cpus-per-task"
done
ids=$( (sed -n 's/.*job=\([0-9]*\).*/\1/p' sims/*.txt scores/*.txt
    sed -n 's/^gather job=//p' results/summary.txt) 2>/dev/null | sort -n)
is "$(echo "$ids" | grep -c .)" 9 "9 Slurm jobs: 4 simulate, 4 score, 1 gather"
is "$(echo "$ids" | sort -u | grep -c .)" 9 "each in a job of its own"

# --- the jobs in sacct -----------------------------------------------------------
acct=$(sacct -X -n -P -j "$(echo $ids | tr ' ' ',')" -o JobID,JobName,Account,Partition,State 2>&1)
is "$(echo "$acct" | grep -cE '^[0-9]+\|snakejob_(simulate|score|gather)_[0-9]+\|proj\|cpu\|COMPLETED$')" 9 \
    "sacct: the 9 jobs COMPLETED, named snakejob_RULE_N, account proj, partition cpu"
[ "$(echo "$acct" | grep -c .)" -eq 9 ] || echo "$acct" | sed 's/^/#   /'
for id in $ids; do
    [ -f ".snakemake/slurm_logs/rule_simulate/$id.log" ] ||
        [ -f ".snakemake/slurm_logs/rule_score/$id.log" ] ||
        [ -f ".snakemake/slurm_logs/rule_gather/$id.log" ] || {
        not_ok "job $id's log in .snakemake/slurm_logs/rule_RULE/$id.log (-o %j.log)"
        continue
    }
    ok "job $id's log in .snakemake/slurm_logs/rule_RULE/$id.log (-o %j.log)"
done
like "$(grep -c '^srun -n1 --cpu-bind=q ' "$CALLS" 2>/dev/null)" '^9$' \
    "inside each job snakemake ran its step with srun -n1 --cpu-bind=q"
like "$(grep '^sacct -P -n --format=JobIdRaw,State -j ' "$CALLS" 2>/dev/null | head -1)" . \
    "it polled the jobs with sacct -P -n --format=JobIdRaw,State -j ID"

cd "$WORK" || exit 1
finish
