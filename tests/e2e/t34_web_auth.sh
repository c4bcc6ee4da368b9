#!/usr/bin/env bash
# The controller's HTTP server as a client meets it (docs/rest.md): auth/jwt
# tokens from `scontrol token` in Slurm's headers or as a Bearer token;
# 401 and nothing else without a good one (missing, tampered, signed with
# another key, "alg": "none", expired, issued in the future, for an
# unknown user, speaking for someone else); who may get tokens for whom;
# bad HTTP (a huge body or head, bad encodings, "..", garbage, idle
# connections) answered 4xx while the controller keeps serving; and TLS
# with SluiceRestTLSCert/SluiceRestTLSKey.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
command -v curl >/dev/null || skip_all "curl is not installed"
OTHER=
cluster_start "$E2E_ROOT/etc/quant-cluster.conf"
trap 'cluster_stop; [ -z "$OTHER" ] || userdel "$OTHER" 2>/dev/null' EXIT

ADDR=$(sed -n 's/^SluiceRestAddr=//p' "$SLUICE_CONF")
URL=http://$ADDR
KEY=$(sed -n 's/^AuthAltParameters=jwt_key=//p' "$SLUICE_CONF")
CTLD_PID=$(cat "$DIR/pids/sluicectld.pid")
like "$ADDR" '^127\.0\.0\.1:[0-9]+$' "sluice up serves HTTP on a loopback port ($ADDR)"

# code URL [curl args...]: the HTTP status alone ("000": no answer).
code() {
    local u=$1
    shift
    curl -s -o body.json -w '%{http_code}' --max-time 10 "$@" "$URL$u"
}
# err: the first error's text of the last reply (body.json).
err() {
    $PY -c 'import json,sys; print(json.load(open("body.json"))["errors"][0]["error"])' 2>&1
}
# forge CLAIMS [KEYFILE] [HEADER]: an HS256 token signed with KEYFILE
# (default the cluster's jwt key) over CLAIMS, for the cases scontrol
# token never makes.
forge() {
    $PY - "$1" "${2:-$KEY}" "${3:-{\"alg\":\"HS256\",\"typ\":\"JWT\"\}}" <<'PY'
import base64, hashlib, hmac, sys
claims, keyfile, head = sys.argv[1:4]
b = lambda s: base64.urlsafe_b64encode(s).rstrip(b'=').decode()
text = b(head.encode()) + '.' + b(claims.encode())
key = open(keyfile, 'rb').read()
print(text + '.' + b(hmac.new(key, text.encode(), hashlib.sha256).digest()))
PY
}
PING=/slurm/v0.0.38/ping

# --- tokens ------------------------------------------------------------------
out=$(scontrol token 2>&1)
like "$out" '^SLURM_JWT=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' \
    "scontrol token prints SLURM_JWT=header.claims.signature"
TOK=${out#SLURM_JWT=}
claims=$($PY -c 'import base64,sys; p=sys.argv[1].split(".")[1]; print(base64.urlsafe_b64decode(p+"="*(-len(p)%4)).decode())' "$TOK")
like "$claims" '"sun": ?"root"' "its claims name the user (sun) ($claims)"
life=$($PY -c 'import json,sys; c=json.loads(sys.argv[1]); print(c["exp"]-c["iat"])' "$claims")
is "$life" 1800 "the default lifespan is 1800 s, as Slurm's"
is "$(code $PING)" 401 "GET ping without a token: 401"
like "$(err)" '^authentication required' "... saying a token is needed"
like "$(curl -s -D - -o /dev/null "$URL$PING" | tr -d '\r')" \
    'WWW-Authenticate: Bearer' "... with WWW-Authenticate: Bearer"
is "$(code /slurm/v0.0.38/jobs)" 401 "an API path without a token: 401, not a hint of what exists"
is "$(code /no/such/thing)" 401 "an unknown path without a token: 401 too"
is "$(code $PING -H "X-SLURM-USER-TOKEN: $TOK")" 200 "X-SLURM-USER-TOKEN: 200"
is "$($PY -c 'import json; print(json.load(open("body.json"))["pings"][0]["ping"])')" UP \
    "... and the controller is UP"
is "$(code $PING -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOK")" 200 \
    "X-SLURM-USER-NAME with its own token: 200"
is "$(code $PING -H "Authorization: Bearer $TOK")" 200 "Authorization: Bearer: 200"
is "$(code /no/such/thing -H "Authorization: Bearer $TOK")" 404 \
    "an unknown path with a token: 404"
is "$(code $PING -X DELETE -H "Authorization: Bearer $TOK")" 405 \
    "DELETE on ping: 405"

# --- tokens that are refused ---------------------------------------------------
now=$(date +%s)
tampered=$($PY -c 'import sys; h,c,s=sys.argv[1].split("."); print(h+"."+c[:-2]+("A" if c[-2]!="A" else "B")+c[-1]+"."+s)' "$TOK")
head -c 32 /dev/urandom >other.key
declare -A refused=(
    ["a tampered claim"]="$tampered|bad signature"
    ["a token of another key"]="$(forge "{\"exp\":$((now + 600)),\"iat\":$now,\"sun\":\"root\"}" other.key)|bad signature"
    ["alg none"]="$(forge "{\"exp\":$((now + 600)),\"sun\":\"root\"}" "$KEY" '{"alg":"none"}' | sed 's/[^.]*$//')|the header is not HS256"
    ["an expired token"]="$(forge "{\"exp\":$((now - 5)),\"iat\":$((now - 60)),\"sun\":\"root\"}")|token expired"
    ["a token issued in an hour"]="$(forge "{\"exp\":$((now + 7200)),\"iat\":$((now + 3600)),\"sun\":\"root\"}")|issued in the future"
    ["no user name"]="$(forge "{\"exp\":$((now + 600)),\"iat\":$now}")|no user name"
    ["an unknown user"]="$(forge "{\"exp\":$((now + 600)),\"iat\":$now,\"sun\":\"no-such-user-x\"}")|unknown to the controller"
    ["garbage"]="not.a.token|malformed token"
)
for what in "${!refused[@]}"; do
    t=${refused[$what]%|*}
    why=${refused[$what]#*|}
    c=$(code $PING -H "X-SLURM-USER-TOKEN: $t")
    like "$c $(err)" "^401 .*$why" "$what: 401, \"$why\""
done
scontrol token lifespan=1 >short.tok
sleep 2.1
is "$(code $PING -H "Authorization: Bearer $(cut -d= -f2 short.tok)")" 401 \
    "scontrol token lifespan=1: refused two seconds later"
like "$(err)" '^token expired' "... as expired"

# --- who may speak for whom ------------------------------------------------------
nob=$(scontrol token username=nobody | cut -d= -f2)
is "$(code $PING -H "X-SLURM-USER-TOKEN: $nob")" 200 "root gets a token for nobody; it works"
is "$(code $PING -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $nob")" 401 \
    "nobody's token naming root in X-SLURM-USER-NAME: 401"
like "$(err)" 'the token is for nobody, not root' "... the token is for nobody, not root"
is "$(code $PING -H "X-SLURM-USER-NAME: nobody" -H "X-SLURM-USER-TOKEN: $TOK")" 200 \
    "root's token may speak for nobody (as SlurmUser's in slurmrestd)"
if command -v useradd >/dev/null && command -v runuser >/dev/null && [ "$(id -u)" = 0 ]; then
    OTHER=sl$$w
    useradd -M -N -s /bin/sh "$OTHER" 2>/dev/null
    chmod 755 "$DIR" "$WORK"
    out=$(cd / && runuser -u "$OTHER" -- env PATH="$PATH" SLUICE_CONF="$SLUICE_CONF" \
        scontrol token username=root 2>&1)
    rc=$?
    like "$out" "only root or the controller's user may get a token for another user" \
        "another user asking for root's token is refused"
    is "$rc" 1 "... and scontrol exits 1"
    out=$(cd / && runuser -u "$OTHER" -- env PATH="$PATH" SLUICE_CONF="$SLUICE_CONF" \
        scontrol token lifespan=60 2>&1)
    like "$out" '^SLURM_JWT=' "a user gets a token for themself"
    is "$(code $PING -H "Authorization: Bearer ${out#SLURM_JWT=}")" 200 "... which works"
else
    ok "# SKIP another user's scontrol token (needs root, useradd, runuser)"
fi
is "$(scontrol token lifespan=0 2>&1; echo "rc=$?")" \
    "scontrol: error: token: lifespan=0: a number of seconds is needed
rc=2" "scontrol token lifespan=0: a usage error"

# --- bad HTTP ------------------------------------------------------------------------
head -c $((5 << 20)) /dev/zero | tr '\0' x >big.body
like "$(code $PING -X POST -H "Authorization: Bearer $TOK" --data-binary @big.body)" \
    '^(413|000)$' "a 5 MiB body: 413 (or the connection closed), read no further"
long=$(head -c 70000 /dev/zero | tr '\0' y)
like "$(code $PING -H "Authorization: Bearer $TOK" -H "X-Long: $long")" '^4[0-9][0-9]$|^000$' \
    "a 70 KB header: refused"
is "$(code '/slurm/v0.0.38/%zz' -H "Authorization: Bearer $TOK")" 400 "a bad %-escape in the path: 400"
is "$(code '/slurm/v0.0.38/a%00b' -H "Authorization: Bearer $TOK")" 400 "an encoded NUL in the path: 400"
is "$(code '/slurm/v0.0.38/../../../etc/passwd' --path-as-is -H "Authorization: Bearer $TOK")" 400 \
    "/../ in the path: 400"
is "$(code '/slurm/v0.0.38/%2e%2e/%2e%2e/etc/passwd' --path-as-is -H "Authorization: Bearer $TOK")" 400 \
    "%2e%2e in the path: 400"
like "$(code $PING -X PUT -H "Authorization: Bearer $TOK")" '^40[05]$|^501$' "PUT: refused"
resp=$($PY - "$ADDR" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(':', 1)
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(b'GARBAGE\x00\xff /x HTTP/9.9\r\n\r\n')
try:
    print(s.recv(200).split(b'\r\n')[0].decode('latin-1') or 'closed')
except OSError as e:
    print('closed')
PY
)
like "$resp" '^(HTTP/1\.[01] 4[0-9][0-9]|closed)' "a garbage request line: 4xx or closed ($resp)"
# 100 idle connections do not stop others from being served
$PY - "$ADDR" <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(':', 1)
held = [socket.create_connection((host, int(port))) for _ in range(100)]
for s in held[:50]:
    s.sendall(b'GET /slurm/v0.0.38/ping HTTP/1.1\r\nHost: x\r\n')  # never ends
open('idle.ready', 'w').write('1')
time.sleep(30)
PY
IDLE=$!
wait_for 10 test -e idle.ready
# (curl gives up after 10 s; the idle ones stay 30 s)
is "$(code $PING -H "Authorization: Bearer $TOK")" 200 \
    "with 100 idle connections held open, ping is served"
alive "$IDLE" && ok "... while they are still open" || not_ok "... while they are still open"
kill "$IDLE" 2>/dev/null
wait "$IDLE" 2>/dev/null
is "$(cat "$DIR/pids/sluicectld.pid")" "$CTLD_PID" "the controller is the same process after all of it"
alive "$CTLD_PID" && ok "... and alive" || not_ok "... and alive"
is "$(squeue -h | wc -l)" 0 "the CLI is still served"

# --- large answers, a page per turn of the loop --------------------------------------
# 130 held jobs: three pages of JOB_QUERY's 50 (REST_PAGE_JOBS), six of
# JOB_ACCT's 25; the answers are streamed in chunks, whole and valid.
for i in $(seq 130); do sbatch -H -J "many$i" -o /dev/null --wrap true; done >/dev/null
count() { # PATH: how many "jobs" the answer lists (its ids distinct), or why not
    curl -s -D head.txt -H "Authorization: Bearer $TOK" "$URL$1" >big.json
    $PY -c 'import json,sys
d = json.load(open("big.json"))
ids = [j["job_id"] for j in d["jobs"]]
print(len(ids) if len(set(ids)) == len(ids) else "duplicates")' 2>&1 | tail -1
}
is "$(count /slurm/v0.0.38/jobs)" 130 "GET /slurm/v0.0.38/jobs: 130 jobs, each once, in valid JSON"
like "$(tr -d '\r' <head.txt)" 'Transfer-Encoding: chunked' "... sent in chunks"
is "$(count /slurmdb/v0.0.38/jobs)" 130 "GET /slurmdb/v0.0.38/jobs: 130 jobs, each once"
is "$(count /sluice/v1/queue)" 130 "GET /sluice/v1/queue: 130 jobs, each once"
is "$(curl -s -o /dev/null -w '%{http_code} %{size_download}' -I \
    -H "Authorization: Bearer $TOK" "$URL/slurm/v0.0.38/jobs")" "200 0" \
    "HEAD of a streamed answer: 200 and no body"
resp=$($PY - "$ADDR" "$TOK" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(':', 1)
for _ in range(5):   # readers that leave after the head, mid-answer
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(('GET /slurm/v0.0.38/jobs HTTP/1.1\r\nHost: x\r\n'
               'Authorization: Bearer %s\r\n\r\n' % sys.argv[2]).encode())
    first = s.recv(64)
    s.close()
print(first.split(b'\r\n')[0].decode())
PY
)
is "$resp" "HTTP/1.1 200 OK" "five readers leave in the middle of a streamed answer"
is "$(code $PING -H "Authorization: Bearer $TOK")" 200 "... and the controller goes on serving"
is "$(count /slurm/v0.0.38/jobs)" 130 "... whole answers too"
scancel -u "$(id -un)" >/dev/null 2>&1

# --- TLS ----------------------------------------------------------------------------
if command -v openssl >/dev/null; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
        -addext subjectAltName=IP:127.0.0.1 -keyout tls.key -out tls.crt \
        >/dev/null 2>&1
    chmod 600 tls.key
    kill "$CTLD_PID"
    wait_for 10 eval '! alive $CTLD_PID'
    printf 'SluiceRestTLSCert=%s\nSluiceRestTLSKey=%s\n' "$WORK/tls.crt" "$WORK/tls.key" \
        >>"$SLUICE_CONF"
    sluice up --dir "$DIR" >/dev/null 2>up.err
    like "$(cat up.err)" "REST API, /metrics and the dashboard on https://$ADDR/" \
        "sluice up: the controller serves HTTPS with the certificate"
    URL=https://$ADDR
    is "$(code $PING --cacert tls.crt -H "Authorization: Bearer $TOK")" 200 \
        "curl --cacert over TLS: 200"
    is "$(code $PING --cacert tls.crt)" 401 "... and 401 without a token"
    URL=http://$ADDR
    like "$(code $PING -H "Authorization: Bearer $TOK")" '^(000|400)$' \
        "plain HTTP to the TLS port gets no answer"
    # a key that is not the certificate's: the controller says so and stops
    kill "$(cat "$DIR/pids/sluicectld.pid")"
    wait_for 10 eval '! alive $(cat "$DIR/pids/sluicectld.pid")'
    openssl genrsa -out wrong.key 2048 >/dev/null 2>&1
    sed -i "s|^SluiceRestTLSKey=.*|SluiceRestTLSKey=$WORK/wrong.key|" "$SLUICE_CONF"
    out=$(sluicectld -f "$SLUICE_CONF" -D 2>&1 </dev/null)
    like "$out" "SluiceRestTLSCert=$WORK/tls.crt SluiceRestTLSKey=$WORK/wrong.key" \
        "a key that does not match the certificate: the controller names both and stops"
    sed -i -e '/^SluiceRestTLS/d' "$SLUICE_CONF"
    sluice up --dir "$DIR" >/dev/null 2>&1
    is "$(code $PING -H "Authorization: Bearer $TOK")" 200 "back on plain HTTP: 200"
else
    ok "# SKIP TLS (no openssl)"
fi

cluster_gone
finish
