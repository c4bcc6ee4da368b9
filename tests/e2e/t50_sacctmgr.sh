#!/usr/bin/env bash
# sacctmgr on a local cluster with the seed's configuration
# (AccountingStorageEnforce=associations,limits,qos): the seed's lines run
# as written, show qos prints 1000/500/100, -P/-p/--json outputs parse, the
# prompt commits on y and discards on n, a non-admin cannot modify, a QOS
# the user may not use is refused with the list, and everything is still
# there after kill -9 of the controller and a restart.
. "$(dirname "$0")/lib.sh"

U=sluicez$$
USER_MADE=
stop_all() {
    cluster_stop
    [ -n "$USER_MADE" ] && userdel "$U" 2>/dev/null
}

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
trap stop_all EXIT

# --- the seed's lines, as written (with -i, as a script would) -------------
for q in "prod_qos Priority=1000" "backtest_qos Priority=500" "dev_qos Priority=100"; do
    # shellcheck disable=SC2086
    out=$(sacctmgr -i add qos $q 2>&1)
    like "$out" "Adding QOS" "sacctmgr add qos $q"
done
err=$(sacctmgr -i add user zhangsan qos=prod_qos,backtest_qos,dev_qos 2>&1 >/dev/null)
rc=$?
is "$rc" 0 "sacctmgr add user zhangsan qos=prod_qos,backtest_qos,dev_qos"
like "$err" '^sacctmgr: no Account= given: created account default \(parent root\)' \
    "without an account it makes account default and says so on stderr"

is "$(sacctmgr show qos format=Name,Priority)" "      Name   Priority
---------- ----------
    normal          0
  prod_qos       1000
backtest_+        500
   dev_qos        100" "show qos format=Name,Priority: 1000/500/100 in Slurm's columns"
is "$(sacctmgr -n -P show qos format=Name,Priority | tr '\n' ' ')" \
    "normal|0 prod_qos|1000 backtest_qos|500 dev_qos|100 " "-n -P: parsable2"
is "$(sacctmgr -p show user format=User,DefaultAccount,AdminLevel | tr '\n' ' ')" \
    "User|Def Acct|Admin| root|root|Administrator| zhangsan|default|None| " \
    "-p: parsable with a trailing |"
is "$(sacctmgr -n -P show assoc where user=zhangsan format=Account,User,QOS)" \
    "default|zhangsan|prod_qos,backtest_qos,dev_qos" "zhangsan's association has the three QOS"
if sacctmgr show qos --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert [q["priority"] for q in d["qos"]] == [0,1000,500,100]'; then
    ok "--json parses and has the priorities"
else
    not_ok "--json parses and has the priorities"
fi
for ent in account user association cluster; do
    if sacctmgr --json show "$ent" | python3 -c 'import json,sys; json.load(sys.stdin)'; then
        ok "show $ent --json parses"
    else
        not_ok "show $ent --json parses"
    fi
done

# --- the prompt: n discards, y commits --------------------------------------
out=$(echo n | sacctmgr modify qos where name=dev_qos set MaxSubmitJobsPerUser=3 2>&1)
like "$out" 'Would you like to commit changes\? \(You have 30 seconds to decide\)' \
    "without -i sacctmgr asks Slurm's question"
like "$out" 'Changes Discarded' "n discards"
is "$(sacctmgr -n -P show qos dev_qos format=MaxSubmitJobsPerUser)" "" "nothing changed after n"
echo y | sacctmgr modify qos where name=dev_qos set MaxSubmitJobsPerUser=3 GrpTRES=gres/gpu=2 >/dev/null
is "$(sacctmgr -n -P show qos dev_qos format=Name,MaxSubmitPU,GrpTRES)" "dev_qos|3|gres/gpu=2" \
    "y commits MaxSubmitJobsPerUser=3 and GrpTRES=gres/gpu=2"
sacctmgr -i modify user where name=zhangsan set qos-=prod_qos DefaultQOS=dev_qos >/dev/null
is "$(sacctmgr -n -P show assoc where user=zhangsan format=QOS,DefQOS)" "backtest_qos,dev_qos|dev_qos" \
    "modify user ... set qos-=prod_qos DefaultQOS=dev_qos"
sacctmgr -i modify qos dev_qos set MaxSubmitJobsPerUser=-1 >/dev/null
is "$(sacctmgr -n -P show qos dev_qos format=MaxSubmitPU)" "" "-1 clears a limit"

# --- bad input: one clear error, non-zero exit -------------------------------
out=$(sacctmgr show qoss 2>&1)
is "$?:$out" "1:sacctmgr: error: Unknown entity: qoss (qos, account, user, association, cluster, tres, events)" \
    "an unknown entity is named"
out=$(sacctmgr -i add qos x_qos Priorty=5 2>&1)
is "$?:$out" "1:sacctmgr: error: Unknown field for qos: Priorty" "an unknown key is named"
out=$(sacctmgr -i modify qos dev_qos set MaxWall=1:99:00 2>&1)
rc=$?
like "$rc:$out" '^1:sacctmgr: error: qos dev_qos: MaxWall=1:99:00: ' "a bad value names the entity, field and value"
out=$(sacctmgr show qos format=Name,Bogus 2>&1)
is "$?:$out" "1:sacctmgr: error: Unknown field for qos format: Bogus" "an unknown column is named"

# --- job QOS at submit (associations,qos enforced) -------------------------
out=$(sbatch --parsable -p dev --qos=dev_qos --wrap true 2>&1)
is "$out" "sbatch: error: Batch job submission failed: Invalid qos specification: root may use normal" \
    "root may not use dev_qos: refused with the list"
out=$(sbatch --parsable -p dev --qos=nosuch_qos --wrap true 2>&1)
like "$out" 'Invalid qos specification: no QOS named nosuch_qos' "an unknown QOS is refused"
id=$(sbatch --parsable -p dev -H --wrap true 2>&1)
is "$(squeue -h -j "$id" -o '%q %a' 2>&1)" "normal root" "root's job gets QOS normal and account root"
scancel "$id"

# --- a non-admin Unix user --------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
    useradd -M -d /nonexistent -s /bin/sh "$U"; then
    USER_MADE=1
    chmod 755 "$DIR" "$WORK"
    as() { (cd / && runuser -u "$U" -- env SLUICE_CONF="$SLUICE_CONF" "$E2E_BIN/$@"); }
    out=$(as sbatch --parsable -p dev --wrap true 2>&1)
    like "$out" "Invalid account or account/partition combination specified: user $U" \
        "a user without an association is refused"
    sacctmgr -i add user "$U" account=default qos=backtest_qos,dev_qos defaultqos=dev_qos >/dev/null
    out=$(as sbatch --parsable -p dev --qos=prod_qos -H --wrap true 2>&1)
    is "$out" "sbatch: error: Batch job submission failed: Invalid qos specification: $U may use backtest_qos,dev_qos" \
        "a QOS the user may not use is refused with those they may"
    id=$(as sbatch --parsable -p dev -H --wrap true 2>&1)
    is "$(squeue -h -j "$id" -o '%q %a' 2>&1)" "dev_qos default" "without --qos the job gets the DefaultQOS"
    scancel "$id"
    out=$(as sacctmgr -i modify qos dev_qos set Priority=1 2>&1)
    rc=$?
    is "$rc:$out" "1:sacctmgr: error: Only admins/operators can modify qos: user $U (uid $(id -u "$U")) has AdminLevel=None" \
        "a non-admin's modify is refused, naming the user"
    is "$(sacctmgr -n -P show qos dev_qos format=Priority)" 100 "and nothing changed"
    is "$(as sacctmgr -n -P show qos dev_qos format=Priority 2>&1)" 100 "a non-admin may list"
    sacctmgr -i modify user "$U" set AdminLevel=Operator >/dev/null
    as sacctmgr -i modify qos dev_qos set Description=dev-pool >/dev/null 2>&1
    is "$(sacctmgr -n -P show qos dev_qos format=Description)" dev-pool "an operator may modify a QOS"
    out=$(as sacctmgr -i modify user "$U" set AdminLevel=Administrator 2>&1)
    like "$out" 'AdminLevel: only administrators may set it' "an operator may not raise AdminLevel"
else
    ok "# SKIP a non-admin user needs root, useradd and runuser"
fi

# --- kill -9 and restart: all of it is still there ---------------------------
before=$(for e in qos account user association cluster; do sacctmgr -n -P show "$e"; done)
ctld_pid=$(cat "$DIR/pids/sluicectld.pid")
kill -9 "$ctld_pid"
wait_for 10 eval "! alive $ctld_pid"
sluice up --dir "$DIR" >/dev/null 2>"$DIR/up2.err" || not_ok "restart the controller"
after=$(for e in qos account user association cluster; do sacctmgr -n -P show "$e"; done)
is "$after" "$before" "QOS, accounts, users, associations and clusters survive kill -9 and a restart"
like "$(echo "$after" | grep '^dev_qos|')" '^dev_qos\|100\|' "dev_qos still has Priority 100"
finish
