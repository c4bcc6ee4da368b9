#!/usr/bin/env bash
# sluice import-slurm, end to end: the seed's Slurm files
# (tests/golden/import/seed: slurm.conf, gres.conf, cgroup.conf and a
# sacctmgr dump) are imported, a local cluster runs on the configuration
# written, the accounting.sh written recreates the accounts, users, QOS
# and limits there (and may be run twice), and a job of an imported user's
# association runs.  The report's wording is the golden test's
# (tests/golden/import).
. "$(dirname "$0")/lib.sh"

need_daemons
IMP=$(mktemp -d /tmp/sluice-import.XXXXXX)
cleanup() {
    cluster_stop
    rm -rf "$IMP"
}
trap cleanup EXIT
cp -r "$E2E_ROOT/tests/golden/import/seed" "$IMP/slurm"
rm -rf "$IMP/slurm/expected"

out=$(cd "$IMP" && sluice import-slurm --dir slurm -o sluice \
    --accounting slurm/sacctmgr.dump 2>&1)
is "$?" 0 "import-slurm of the seed's files exits 0"
like "$out" "check-config -f sluice/sluice.conf: valid" "its result is valid"
for f in sluice.conf gres.conf cgroup.conf accounting.sh import-report.txt; do
    [ -s "$IMP/sluice/$f" ] && ok "wrote $f" || not_ok "wrote $f"
done
is "$(stat -c %a "$IMP/sluice/accounting.sh")" 755 "accounting.sh is executable"
out=$(cd "$IMP" && sluice import-slurm --dir slurm -o sluice 2>&1)
is "$?" 1 "a second import into the same directory is refused"
like "$out" "sluice/sluice.conf exists: remove it, or give --force" \
    "... and says why"
(cd "$IMP" && sluice import-slurm --dir slurm -o sluice --force \
    --accounting slurm/sacctmgr.dump >/dev/null 2>&1)
is "$?" 0 "--force replaces the files"

cluster_start "$IMP/sluice/sluice.conf"
is "$(sinfo -h -o '%P %D' | LC_ALL=C sort | tr '\n' ' ')" \
    "backtest* 2 dev 1 prod 1 " "the imported partitions serve"

out=$(sh "$IMP/sluice/accounting.sh" 2>&1)
is "$?" 0 "accounting.sh runs against the cluster"
[ -z "$out" ] && ok "... silently" || { not_ok "... silently"; echo "$out" | sed 's/^/#   /'; }
out=$(sh "$IMP/sluice/accounting.sh" 2>&1)
is "$?" 0 "accounting.sh runs a second time (what is there is passed over)"

is "$(sacctmgr -n -P show qos format=Name | LC_ALL=C sort | tr '\n' ' ')" \
    "backtest_qos dev_qos normal prod_qos " "the QOS the dump names exist"
is "$(sacctmgr -n -P show account format=Account,Description,Organization | grep '^quant')" \
    "quant|quant team|quant" "account quant, with its description"
# (QOS and DefaultQOS as sacctmgr shows them: inherited where not set)
is "$(sacctmgr -n -P show assoc where account=quant format=User,Share,GrpTRES,MaxSubmit,MaxTRES,QOS,DefaultQOS | LC_ALL=C sort | tr '\n' ' ')" \
    "lisi|5|||node=2|backtest_qos,dev_qos|normal zhangsan|10||50||prod_qos,backtest_qos,dev_qos|backtest_qos |100|gres/gpu=16|||normal|normal " \
    "associations: shares, limits (MaxNodesPerJob as MaxTRES=node), QOS"
is "$(sacctmgr -n -P show user format=User,DefaultAccount,AdminLevel | LC_ALL=C sort | tr '\n' ' ')" \
    "lisi|quant|Operator root|root|Administrator zhangsan|quant|None " \
    "users: default accounts, lisi an Operator"

id=$(sbatch --parsable -p backtest --wrap 'echo imported')
wait_for 30 job_ended "$id"
is "$(sacct -n -X -j "$id" -o State -P)" COMPLETED "a job runs on the imported cluster"
finish
