#!/bin/sh
# The accounts, users and associations of sacctmgr.dump (sacctmgr dump),
# for Sluice, written by sluice import-slurm; what it changed or could
# not carry is in import-report.txt beside this file.  Run it once
# the controller runs, as root or a Sluice administrator:
#     sh accounting.sh
# It may be run again: a command whose account, user or QOS is there
# already is passed over.
set -u
acct() {
    out=$(sluice acctmgr -i "$@" 2>&1) && return 0
    case $out in *already*|*"nothing new"*) return 0 ;; esac
    printf 'sluice acctmgr %s: %s\n' "$*" "$out" >&2
    exit 1
}

# QOS the dump names (a dump does not define them): add their settings,
# as on Slurm: sacctmgr show qos format=Name,Priority,MaxSubmitPU,...
acct add qos 'prod_qos'
acct add qos 'backtest_qos'
acct add qos 'dev_qos'

# Accounts and users, each under its parent
acct add account 'quant' Parent='root' Description='quant team' Organization='quant' Fairshare='100' GrpTRES='gres/gpu=16'
acct add user 'zhangsan' Account='quant' DefaultAccount='quant' Fairshare='10' QOS='prod_qos,backtest_qos,dev_qos' DefaultQOS='backtest_qos' MaxSubmitJobs='50'
acct add user 'lisi' Account='quant' DefaultAccount='quant' AdminLevel='Operator' Fairshare='5' QOS='backtest_qos,dev_qos' MaxTRES=node='2'
