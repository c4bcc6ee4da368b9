#!/usr/bin/env bash
# The adversarial harness itself (tests/e2e/adv.sh): an unprivileged user
# made for the test, a raw frame from Python as that user, identified by
# SO_PEERCRED and not by anything in the body, and the check every attack
# ends with.  Also: a user cannot act as root by saying so in a frame.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/adv.sh"
adv_need
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
adv_setup

id=$(as_user "$MAL" sbatch --parsable -H -p dev -t 1 --wrap true 2>&1)
like "$id" '^[0-9]+$' "an unprivileged user submits"
is "$(squeue -h -j "$id" -o %u)" "$MAL" "the job is recorded as the attacker's"

# A raw SUBMIT whose body claims uid 0: the owner is still the peer.
out=$(adv_py "$MAL" <<'PY'
from sl import *
r = call(SUBMIT, {"job": {"script": "#!/bin/sh\ntrue\n", "partition": "dev",
                          "hold": True, "work_dir": "/tmp", "user_id": 0,
                          "group_id": 0, "user_name": "root"}})
print(r.get("job_id", r))
PY
)
if [[ "$out" =~ ^[0-9]+$ ]]; then
    is "$(squeue -h -j "$out" -o '%u %U')" "$MAL $(id -u "$MAL")" \
        "a frame that claims uid 0 is still the attacker's job"
else
    like "$out" "error|refused|unknown" "a frame that claims uid 0 is refused"
fi
still_serving "after a frame claiming uid 0"
finish
