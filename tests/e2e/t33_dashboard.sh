#!/usr/bin/env bash
# The web dashboard (docs/dashboard.md) on the seed's cluster
# (etc/quant-cluster.conf), with prod sharing node04 with dev so that a
# prod job preempts dev jobs there: headless Chromium logs in with a
# token and shows the GPU map (the busy cells are the GPUs scontrol names
# for each running job), the queue (every unfinished job, each pending
# one with squeue's reason, the preempted ones marked), a preempted job's
# timeline and output (its owner sees the output, another user does not),
# the preemption review's SVG chart and fair-share, with no console
# message; screenshots are kept (T33_SHOTS, default build/tests/t33/) and
# their paths printed.  The static files carry their security headers and
# no path leads out of the dashboard.  As root the jobs belong to two
# users made for the test; otherwise to the caller, and the checks that
# need a second user are skipped.
. "$(dirname "$0")/lib.sh"

CHROME=${CHROMIUM:-/usr/bin/chromium}
PY=/usr/bin/python3
[ -x "$CHROME" ] || skip_all "$CHROME is not installed (scripts/deps.sh installs chromium)"
[ -x "$PY" ] || skip_all "$PY is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
SHOTS=${T33_SHOTS:-$E2E_ROOT/$E2E_BUILD/tests/t33}
mkdir -p "$SHOTS" || skip_all "cannot make $SHOTS"

USERS_MADE=
CHROME_PID=
stop_all() {
    # a browser still running (the test was interrupted): by its pid; its
    # helpers run with our profile (in $DIR), which cluster_stop's sweep
    # of $DIR's processes ends
    if [ -n "$CHROME_PID" ] && kill -0 "$CHROME_PID" 2>/dev/null; then
        kill "$CHROME_PID" 2>/dev/null
    fi
    cluster_stop
    for u in $USERS_MADE; do
        userdel "$u" 2>/dev/null
    done
}

cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
trap stop_all EXIT
PORT=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
BASE=http://$PORT

# --- users, accounts, the scenario ------------------------------------------
# T33_USERS="alice bob" names the two users (scripts/dashboard-shots.sh).
read -r UA UB <<<"${T33_USERS:-dsa$$ dsb$$}"
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null &&
    command -v runuser >/dev/null; then
    for u in "$UA" "$UB"; do
        useradd -M -d /nonexistent -s /bin/sh "$u" || { not_ok "useradd $u"; finish; exit; }
        USERS_MADE="$USERS_MADE $u"
    done
else
    UA=$(id -un)
    UB=$UA
fi
sacctmgr -i add account trading,research >/dev/null
# the seed enforces associations: each user gets an account (the caller,
# as the controller's user, is an administrator)
sacctmgr -i add user "$UA" account=trading >/dev/null
[ "$UB" = "$UA" ] || sacctmgr -i add user "$UB" account=research >/dev/null
# prod may take dev's GPUs on node04, and no job is exempt (the seed's
# five minutes would outlast the test): an administrator's settings
scontrol update PartitionName=prod Nodes=node01,node04
sacctmgr -i modify qos normal set PreemptExemptTime=0 >/dev/null
chmod 755 "$DIR" "$WORK"
mkdir -p "$WORK/$UA" "$WORK/$UB"
chown "$UA" "$WORK/$UA"
chown "$UB" "$WORK/$UB"
cat >"$WORK/train.sh" <<'EOF'
#!/bin/sh
i=0
while [ $i -lt 900 ]; do
    echo "$SLURM_JOB_NAME step $i loss=0.$((1000 - i))"
    i=$((i + 1))
    sleep 1
done
EOF
chmod 755 "$WORK/train.sh"

# as USER CMD ARGS...: a Slurm command run by USER in their directory.
as() {
    local u=$1 cmd=$2
    shift 2
    if [ -n "$USERS_MADE" ]; then
        (cd "$WORK/$u" && runuser -u "$u" -- env SLUICE_CONF="$SLUICE_CONF" \
            "$E2E_BIN/$cmd" "$@")
    else
        (cd "$WORK/$u" && "$E2E_BIN/$cmd" "$@")
    fi
}
state_is() { [ "$(job_state "$1")" = "$2" ]; }

bt1=$(as "$UA" sbatch --parsable -p backtest -J bt-sweep --gpus-per-node=3 "$WORK/train.sh")
bt2=$(as "$UA" sbatch --parsable -p backtest -J bt-full --gpus-per-node=4 "$WORK/train.sh")
dev=
for i in 1 2 3 4; do
    dev="$dev $(as "$UB" sbatch --parsable -p dev -J "dev-train-$i" --gpus-per-node=1 "$WORK/train.sh")"
done
read -r d1 d2 d3 d4 <<<"$dev"
live1=$(as "$UA" sbatch --parsable -p prod -J live-risk --gpus-per-node=1 -w node01 "$WORK/train.sh")
for j in $bt1 $bt2 $dev $live1; do wait_for 15 state_is "$j" RUNNING; done
is "$(squeue -h -t R -o %i | wc -l | tr -d ' ')" 7 "seven jobs run (backtest, dev, prod)"
# a second of work for the victims to lose, and a line of output
wait_for 10 eval "grep -q 'step 1' '$WORK/$UB/slurm-$d1.out'"
live2=$(as "$UA" sbatch --parsable -p prod -J live-alpha --gpus-per-node=2 -w node04 "$WORK/train.sh")
wait_for 20 state_is "$live2" RUNNING
is "$(job_state "$live2")" RUNNING "a prod job needing two of node04's GPUs runs"
victims=
for j in $dev; do
    [ "$(squeue -h -j "$j" -o '%T')" = PENDING ] && victims="$victims $j"
done
victims=${victims# }
is "$(echo "$victims" | wc -w | tr -d ' ')" 2 "it preempted two dev jobs, requeued ($victims)"
vic=${victims%% *}
big=$(as "$UA" sbatch --parsable -p backtest -J bt-big --gpus-per-node=4 "$WORK/train.sh")
held=$(as "$UB" sbatch --parsable -p dev -H -J dev-held --gpus-per-node=1 "$WORK/train.sh")
wait_for 10 eval "[ \"\$(squeue -h -j $big -o %r)\" = Resources ]"

TOK_ROOT=$(scontrol token | sed 's/^SLURM_JWT=//')
TOK_A=$(scontrol token username="$UA" | sed 's/^SLURM_JWT=//')
TOK_B=$(scontrol token username="$UB" | sed 's/^SLURM_JWT=//')

# --- static files: headers, and no way out ---------------------------------
hdr=$(curl -s -D - -o "$WORK/index.html" "$BASE/")
like "$hdr" '^HTTP/1.1 200' "GET / serves the dashboard"
like "$hdr" "Content-Security-Policy: default-src 'self'" "with Content-Security-Policy: default-src 'self'"
like "$hdr" 'X-Frame-Options: DENY' "with X-Frame-Options: DENY"
like "$hdr" 'Cache-Control: no-cache' "with Cache-Control"
like "$hdr" 'Content-Type: text/html' "as text/html"
cmp -s "$WORK/index.html" "$E2E_ROOT/web/dashboard/index.html" &&
    ok "/ is web/dashboard/index.html, byte for byte" || not_ok "/ is web/dashboard/index.html"
like "$(curl -s -D - -o /dev/null "$BASE/dashboard/app.js")" 'Content-Type: text/javascript' \
    "/dashboard/app.js is JavaScript"
etag=$(curl -s -D - -o /dev/null "$BASE/dashboard/style.css" | sed -n 's/^ETag: //p' | tr -d '\r')
is "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$BASE/dashboard/style.css")" 304 \
    "a file the browser has is 304 (ETag)"
is "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/dashboard/nothing.js")" 404 "a file not embedded is 404"
bad=
for p in '/../etc/passwd' '/dashboard/../../etc/passwd' '/dashboard/%2e%2e/%2e%2e/etc/passwd' \
    '/dashboard/..%2f..%2f..%2fetc%2fpasswd' '/dashboard/%2e%2e%2f%2e%2e%2fsluice.conf' \
    '/dashboard/.%2e/.%2e/etc/passwd' '/%2e%2e/%2e%2e/etc/passwd' '/dashboard//etc/passwd' \
    '/dashboard/%2fetc%2fpasswd' '/dashboard/index.html%00.js' '/dashboard/..\..\etc\passwd' \
    '/dashboard/%5c..%5c..%5cetc%5cpasswd' '/dashboard/./index.html/..'; do
    code=$(curl -s --path-as-is -o "$WORK/trav.out" -w '%{http_code}' "$BASE$p")
    case $code in
    4??) grep -q 'root:' "$WORK/trav.out" && bad="$bad $p(leaked)" ;;
    *) bad="$bad $p($code)" ;;
    esac
done
is "$bad" "" "path traversal attempts (.., %2e%2e, encoded slashes, NUL, backslashes) get 4xx"
is "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/sluice/v1/cluster")" 401 \
    "/sluice/v1 without a token is 401"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer x.y.z' "$BASE/sluice/v1/cluster")" 401 \
    "/sluice/v1 with a bad token is 401"

# --- the API: the output tail is the owner's (and operators') ---------------
api() { curl -s -H "Authorization: Bearer $1" "$BASE/sluice/v1$2"; }
jfield() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[int(k)] if isinstance(v, list) else v.get(k)
print(v)' "$1"; }
like "$(api "$TOK_B" "/jobs/$vic/output" | jfield text)" "dev-train-[0-9] step 0" \
    "the owner reads the preempted job's output"
like "$(api "$TOK_ROOT" "/jobs/$vic/output?bytes=64" | jfield truncated)" True \
    "an operator too, its tail capped by ?bytes="
if [ -n "$USERS_MADE" ]; then
    is "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK_A" \
        "$BASE/sluice/v1/jobs/$vic/output")" 403 "another user may not (403)"
else
    ok "# SKIP another user's output (needs root to make users)"
fi
is "$(api "$TOK_A" /whoami | jfield user)" "$UA" "whoami names the token's user"

# --- the browser ------------------------------------------------------------
# chrome NAME TOKEN VIEW [HEIGHT]: the dashboard at #token=TOKEN&view=VIEW
# in a fresh profile; its DOM in $WORK/NAME.html, its console in
# $WORK/NAME.log, a screenshot $SHOTS/NAME.png.  No token: the page alone.
chrome() {
    local name=$1 tok=$2 view=$3 height=${4:-1000} url=$BASE/
    [ -n "$tok" ] && url="$BASE/#token=$tok&view=$view"
    rm -rf "$WORK/chrome-$name"
    timeout 45 "$CHROME" --headless=new --no-sandbox --disable-gpu \
        --no-first-run --no-default-browser-check --disable-extensions \
        --disable-background-networking --disable-sync --disable-component-update \
        --hide-scrollbars --force-color-profile=srgb \
        --user-data-dir="$WORK/chrome-$name" --window-size=1400,"$height" \
        --enable-logging=stderr --v=0 --virtual-time-budget=2500 \
        --screenshot="$SHOTS/$name.png" --dump-dom "$url" \
        >"$WORK/$name.html" 2>"$WORK/$name.log" &
    CHROME_PID=$!
    wait "$CHROME_PID"
    CHROME_PID=
    "$PY" "$E2E_ROOT/tests/e2e/dashdom.py" "$WORK/$name.html" >"$WORK/$name.data"
    echo "# screenshot: $SHOTS/$name.png"
}
# ready NAME VIEW: the page rendered VIEW; no console message at all
# (errors, CSP refusals, failed loads all show there).
ready() {
    is "$(sed -n 's/^body .*data-ready=\([^ ]*\).*/\1/p' "$WORK/$1.data")" "$2" \
        "$1: the dashboard shows the $2 view"
    is "$(grep -c ':CONSOLE' "$WORK/$1.log")" 0 "$1: no console message"
    grep ':CONSOLE' "$WORK/$1.log" | head -5 | sed 's/^/#   /'
}

chrome login "" ""
ready login login
is "$(grep -c 'id="login"' "$WORK/login.html")" 1 "without a token the login form shows"

# The GPU map against scontrol's indices: "node gpu job" of every busy GPU.
chrome cluster "$TOK_ROOT" /cluster
ready cluster cluster
want=$(for j in $(squeue -h -t R -o %i); do
    scontrol show job -d "$j" | sed -n 's/.*Nodes=\([^ ]*\) GRES=gpu[^(]*(IDX:\([^)]*\)).*/\1 \2/p' |
        while read -r node idx; do
            for r in ${idx//,/ }; do
                for g in $(seq "${r%-*}" "${r#*-}"); do echo "$node $g $j"; done
            done
        done
done | sort)
got=$(grep ' data-gpu=' "$WORK/cluster.data" | grep 'data-state=busy' |
    sed 's/.*data-node=\([^ ]*\) data-gpu=\([0-9]*\) .*data-job-id=\([0-9]*\).*/\1 \2 \3/' | sort)
is "$got" "$want" "the busy GPU cells are the GPUs scontrol shows each running job holding"
is "$(grep -c ' data-gpu=' "$WORK/cluster.data")" 16 "16 GPU cells (4 nodes x gpu:4)"
is "$(grep ' data-gpu=' "$WORK/cluster.data" | grep -c 'data-state=idle')" \
    "$((16 - $(echo "$want" | grep -c .)))" "the others are idle"
like "$(grep "^a data-node=node04 data-gpu=[0-9] data-state=busy data-job-id=$live2 " "$WORK/cluster.data" | wc -l)" \
    '^ *2$' "node04 shows the prod job on two GPUs"

# The queue: every unfinished job; pending ones with squeue's reason.
chrome queue "$TOK_B" /queue
ready queue queue
is "$(sed -n 's/^tr .*data-job-id=\([0-9]*\) data-state=\([A-Z]*\) data-reason=\([^ ]*\).*/\1 \2 \3/p' \
    "$WORK/queue.data" | sort -n)" \
    "$(squeue -h -o '%i %T %r' | sort -n)" "the queue shows squeue's jobs, states and reasons"
is "$(grep '^tr ' "$WORK/queue.data" | grep 'data-preempted=1' |
    sed 's/.*data-job-id=\([0-9]*\).*/\1/' | sort -n | tr '\n' ' ')" \
    "$(echo "$victims" | tr ' ' '\n' | sort -n | tr '\n' ' ')" "the preempted jobs are marked"

# A preempted job, as its owner: timeline, events and output.
chrome job "$TOK_B" "/job/$vic" 1300
ready job job
like "$(grep '^body ' "$WORK/job.data")" "data-route=job/$vic" \
    "#token=...&view= logs in and leaves the token out of the address"
like "$(grep '^g ' "$WORK/job.data")" 'data-event=preempt' "the timeline marks the preemption"
like "$(grep '^rect ' "$WORK/job.data" | tr '\n' ' ')" 'data-phase=running.*data-phase=pending' \
    "it ran, then waited again"
like "$(grep '^tr data-event' "$WORK/job.data" | tr '\n' ' ')" \
    'data-event=start .*data-event=preempt .*data-event=requeue' "the events: start, preempt, requeue"
like "$("$PY" "$E2E_ROOT/tests/e2e/dashdom.py" --text job-output "$WORK/job.html")" \
    "dev-train-[0-9] step 0" "its owner sees its output"

if [ -n "$USERS_MADE" ]; then
    chrome job-other "$TOK_A" "/job/$vic"
    ready job-other job
    if grep -q 'id="job-output"' "$WORK/job-other.html"; then
        not_ok "another user does not see the output"
    else
        ok "another user does not see the output"
    fi
    like "$(cat "$WORK/job-other.html")" "Only the job's owner or an operator" "and is told why"
else
    ok "# SKIP another user's view of the job (needs root to make users)"
fi

chrome preemptions "$TOK_ROOT" /preemptions 1200
ready preemptions preemptions
like "$(grep "^rect data-name=$UB " "$WORK/preemptions.data")" 'data-value=0\.[0-9]*[1-9]' \
    "the chart of GPU-hours lost has a bar for $UB"
like "$(grep -c '^svg data-chart' "$WORK/preemptions.data")" '^3$' "by user, QOS and partition"

chrome fairshare "$TOK_ROOT" /fairshare
ready fairshare fairshare
like "$(grep '^tr data-account' "$WORK/fairshare.data" | tr '\n' ' ')" \
    'data-account=trading.*data-account=research' "fair-share lists the accounts"

chrome pending "$TOK_ROOT" "/job/$big" 1100
ready pending job
like "$(grep "^div data-explain=$big" "$WORK/pending.data")" . \
    "a pending job's page explains why it waits"
like "$(grep "^tr data-node=" "$WORK/pending.data" | tr '\n' ' ')" \
    'data-node=node02 data-status=busy.*data-node=node03 data-status=busy' \
    "node by node"

# --- clicks and typing, through the DevTools protocol -------------------------
# Log in by pasting scontrol's line; a bad token is refused; a #token= link
# logs in and leaves the address bar; a pending job's row explains it on a
# click; logging out forgets the token.
cat >"$WORK/steps" <<EOF
open $BASE/
wait 10 document.body.dataset.ready === 'login'
type #token-input SLURM_JWT=not.a.token
submit #login
wait 10 /refused/.test(document.querySelector('.login-error').textContent)
eval document.querySelector('.login-error').textContent
type #token-input export SLURM_JWT=$TOK_B
submit #login
wait 10 document.body.dataset.ready === 'cluster'
eval document.getElementById('who').textContent
eval sessionStorage.getItem('sluice.token') === '$TOK_B'
eval location.hash = '#/queue'
wait 10 document.body.dataset.ready === 'queue'
click tr.job[data-job-id="$vic"]
wait 10 document.querySelector('tr.explain-row [data-explain="$vic"]')
eval document.querySelector('tr.explain-row [data-explain="$vic"] dd').textContent
shot $SHOTS/explain.png
eval location.hash = '#token=$TOK_A&view=/job/$big'
wait 10 document.body.dataset.route === 'job/$big'
eval location.hash
eval document.getElementById('who').textContent
click #logout
wait 5 document.body.dataset.ready === 'login'
eval String(sessionStorage.getItem('sluice.token'))
EOF
timeout 60 "$PY" "$E2E_ROOT/tests/e2e/cdp.py" "$CHROME" "$WORK/chrome-cdp" "$WORK/steps" \
    >"$WORK/cdp.out" 2>&1 &
CHROME_PID=$!
wait "$CHROME_PID"
cdp_rc=$?
CHROME_PID=
echo "# screenshot: $SHOTS/explain.png"
is "$cdp_rc" 0 "the DevTools session ran every step"
grep -v '^= ' "$WORK/cdp.out" | sed 's/^/#   /'
answers="|$(grep '^= ' "$WORK/cdp.out" | tr '\n' '|')"
like "$answers" '^\|= "The controller refused this token: [^"]*"\|' "a bad token is refused at login"
# (the user's name, then " · admin" or " · operator" when so)
like "$answers" "\\|= \"$UB( [^\"]*)?\"\\|= true\\|" "a pasted 'export SLURM_JWT=...' logs in, kept for the tab"
like "$answers" '\|= "PENDING' "a click on a pending job's row explains it"
like "$answers" "\\|= \"#/job/$big\"\\|= \"$UA( [^\"]*)?\"\\|" \
    "#token=...&view= logs in as that token's user and leaves the address bar"
like "$answers" '\|= "null"\|$' "logging out forgets the token"
# the browser itself reports the bad token's 401; nothing else may show
is "$(grep '^console:' "$WORK/cdp.out" | grep -vc 'status of 401 .*/sluice/v1/whoami$')" 0 \
    "no other console message, uncaught exception or failed load"

cluster_gone
finish
