#!/usr/bin/env bash
# JOB_UPDATE as an attack (security audit findings 2, 14, 20): an
# unprivileged user moves a held job into a partition whose MaxTime or
# AllowGroups its submission there would fail; an Operator updates a
# partition or sets a priority; a task id above 2^32-1 in "N_T".  Each
# must be refused with a message that says why, and the controller must
# go on serving everyone else.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need

# ---- the stock configuration: MaxTime (audit repro (a)) ----
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup

out=$(as_user "$MAL" sbatch -p dev -t 2-00:00:00 --wrap 'sleep 1' 2>&1)
like "$out" 'MaxTime' "a 2-day dev job is refused at submission (MaxTime)"
id=$(as_user "$MAL" sbatch --parsable -H -p prod -t INFINITE --wrap 'sleep 100000' 2>&1)
like "$id" '^[0-9]+$' "a held prod job with no time limit is accepted"
out=$(as_user "$MAL" scontrol update JobId="$id" Partition=dev 2>&1)
rc=$?
like "$rc:$out" '^[1-9][0-9]*:.*time limit INFINITE exceeds the MaxTime 1-00:00:00 of partition dev' \
    "moving it to dev is refused, naming MaxTime"
is "$(squeue -h -j "$id" -o '%P %l')" "prod UNLIMITED" \
    "the refused job stays in prod with its time limit"
out=$(as_user "$MAL" scontrol update JobId="$id" Partition=dev TimeLimit=1:00:00 2>&1)
is "$?:$(squeue -h -j "$id" -o '%P %l')" "0:dev 1:00:00" \
    "with a time limit dev allows, the same move is accepted ($out)"

# ---- finding 20: a task id that does not fit in 32 bits ----
arr=$(as_user "$MAL" sbatch --parsable -H -p dev -t 1 -a 0-3 --wrap true 2>&1)
out=$(adv_py "$MAL" "$arr" <<'PY'
import sys
from sl import *
r = call(JOB_UPDATE, {"job_id": sys.argv[1] + "_4294967299",
                      "set": {"name": "renamed"}})
print(r)
PY
)
like "$out" 'array task id 4294967299 is out of range' \
    "JOB_UPDATE N_4294967299 is refused, not taken for task 3"
is "$(squeue -h -r -j "$arr" -o '%i %j' | grep "_3 ")" "${arr}_3 wrap" \
    "task 3 keeps its name"

# ---- finding 14: an Operator is not an Administrator ----
sacctmgr -i modify user "$MAL" set AdminLevel=Operator >/dev/null
out=$(as_user "$MAL" scontrol update PartitionName=dev MaxTime=INFINITE 2>&1)
like "$?:$out" '^[1-9][0-9]*:.*only an administrator' \
    "an Operator may not update a partition"
is "$(scontrol show partition dev | grep -o 'MaxTime=[^ ]*')" "MaxTime=1-00:00:00" \
    "dev keeps its MaxTime"
gid=$(as_user "$GOOD" sbatch --parsable -H -p dev -t 1 --wrap true 2>&1)
out=$(as_user "$MAL" scontrol update JobId="$gid" Priority=1000000 2>&1)
like "$?:$out" '^[1-9][0-9]*:.*only an administrator may set a priority' \
    "an Operator may not set a job's priority"
as_user "$MAL" scontrol update JobId="$gid" TimeLimit=00:00:30 >/dev/null 2>&1
is "$?:$(squeue -h -j "$gid" -o %l)" "0:1:00" \
    "an Operator still manages other users' jobs (as in Slurm)"
sacctmgr -i modify user "$MAL" set AdminLevel=None >/dev/null
still_serving "after the MaxTime bypass attempt"
adv_cleanup

# ---- AllowGroups=root on prod (audit repro (b)) ----
conf=$(mktemp /tmp/sluice-t82.XXXXXX.conf)
sed 's/^PartitionName=prod .*/& AllowGroups=root/' \
    "$E2E_ROOT/etc/quant-cluster.conf" >"$conf"
cluster_start "$conf"
rm -f "$conf"
adv_setup

out=$(as_user "$MAL" sbatch -p prod --wrap true 2>&1)
like "$out" 'AllowGroups=root' "a prod submission is refused (AllowGroups=root)"
id=$(as_user "$MAL" sbatch --parsable -H -p dev -t 10 --wrap 'sleep 600' 2>&1)
like "$id" '^[0-9]+$' "a held dev job is accepted"
out=$(as_user "$MAL" scontrol update JobId="$id" Partition=prod 2>&1)
like "$?:$out" '^[1-9][0-9]*:.*(AllowGroups=root)' \
    "moving it to prod is refused, naming AllowGroups"
as_user "$MAL" scontrol release "$id" >/dev/null 2>&1
is "$(squeue -h -j "$id" -o %P)" "dev" "the job is still in dev"
still_serving "after the AllowGroups bypass attempt"
finish
