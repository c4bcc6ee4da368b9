#!/usr/bin/env bash
# Slurm 22.05's sbatch/srun options on a live cluster: options without
# effect are accepted with one warning line each, the new JOBSPEC options
# do not stop a job, a misspelled option gets the nearest name, and
# sbatch --wait exits with the job's code (an array's highest).
. "$(dirname "$0")/lib.sh"

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"

# --- warn-only options: one line each, the job runs ----------------------
cat >warn.sh <<'EOF2'
#!/bin/bash
#SBATCH --job-name=warned
#SBATCH --switches=1
#SBATCH --power=level
#SBATCH --switches=2
#SBATCH --comment="a comment" --wckey=submitit --open-mode=append
#SBATCH --mail-type=END,FAIL --mail-user=nobody@example.org
#SBATCH --time-min=1 --propagate=STACK --get-user-env
#SBATCH --output=warn-%j.out
srun --mpi=pmix -X echo "ran $SLURM_JOB_ID"
EOF2
sbatch -S 1 --acctg-freq=30 warn.sh >warn.out 2>warn.err
rc=$?
is "$rc" 0 "sbatch with warn-only options succeeds"
id=$(sed -n 's/^Submitted batch job //p' warn.out)
if [ -n "$id" ]; then ok "sbatch printed the job id"; else not_ok "sbatch printed no job id"; fi
is "$(grep -c 'has no effect in Sluice' warn.err)" 4 \
    "one warning per warn-only option (--switches twice counts once)"
like "$(grep -- '--switches' warn.err)" \
    '^sbatch: warning: --switches has no effect in Sluice \(no network topology\)$' \
    "the warning names the option and why"
like "$(cat warn.err)" 'warning: --core-spec has no effect' "-S names --core-spec"
wait_for 20 job_ended "$id"
is "$(job_state "$id")" COMPLETED "the job with warned options completes"
like "$(cat "warn-$id.out")" "warning: --mpi has no effect in Sluice" \
    "srun warns about --mpi inside the job"
like "$(cat "warn-$id.out")" "ran $id" "srun ran the step"

# --- --quiet: no warnings, no Submitted line ------------------------------
out=$(sbatch -Q --switches=1 --wrap true 2>&1)
is "$out" "" "sbatch -Q prints nothing"

# --- a misspelled option ---------------------------------------------------
msg=$(sbatch --ntask-per-node=2 --wrap true 2>&1)
rc=$?
is "$rc" 1 "a misspelled option fails with 1"
is "$msg" "sbatch: error: unrecognized option '--ntask-per-node'
sbatch: error: did you mean '--ntasks-per-node'?" \
    "the error names the nearest option"
printf '#!/bin/sh\n#SBATCH --exlusive\ntrue\n' >typo.sh
msg=$(sbatch typo.sh 2>&1)
is "$msg" "sbatch: error: typo.sh:2: unrecognized option '--exlusive'; did you mean '--exclusive'?" \
    "a misspelled #SBATCH line names the nearest option"
msg=$(sbatch --mail-type=SOMETIMES --wrap true 2>&1)
like "$msg" "^sbatch: error: --mail-type=SOMETIMES: invalid mail type 'SOMETIMES'" \
    "a bad mail type is named"

# --- --wait ----------------------------------------------------------------
out=$(sbatch --wait --wrap 'exit 3')
rc=$?
is "$rc" 3 "sbatch --wait exits with the job's exit code"
like "$out" '^Submitted batch job [0-9]+$' "sbatch --wait still says the id"
sbatch -W -Q --wrap true
is "$?" 0 "sbatch -W of a job that succeeds exits 0"
sbatch -W -Q -a 1-3 --wrap 'exit $((SLURM_ARRAY_TASK_ID == 2 ? 5 : 0))'
is "$?" 5 "sbatch --wait of an array exits with the highest task code"
SBATCH_WAIT=1 sbatch -Q --wrap 'exit 4'
is "$?" 4 "SBATCH_WAIT waits too"

finish
