#!/usr/bin/env bash
# The node's GPU inventory as a person sees it: `sluiced -C` against the
# fake libnvidia-ml.so.1 built by the tests (devices, a failing nvmlInit,
# no devices, no library), gres.conf File= and count-only lines, and a
# node configured with Gres=gpu:4 that finds none logging why (the note
# it also registers with, for the controller's INVALID reason).
set -u
cd "$(dirname "$0")/../.."
BUILD=${SLUICE_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
SLUICED=$BUILD/bin/sluiced
FAKE=$BUILD/tests/fake_nvml/libnvidia-ml.so.1
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
is() { # is GOT WANT WHAT
    if [ "$1" = "$2" ]; then
        ok "$3"
    else
        not_ok "$3"
        printf '%s\n' "$1" | sed 's/^/#   got:  /'
        printf '%s\n' "$2" | sed 's/^/#   want: /'
    fi
}
if [ ! -x "$SLUICED" ] || [ ! -f "$FAKE" ]; then
    echo "ok 1 # SKIP $SLUICED or $FAKE is not built"
    exit 0
fi
TMP=$(mktemp -d /tmp/sluice-t24.XXXXXX)
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
unset FAKE_NVML_COUNT FAKE_NVML_NAMES FAKE_NVML_MINORS FAKE_NVML_NVLINK \
    FAKE_NVML_INIT_FAIL FAKE_NVML_MEMORY_MIB FAKE_NVML_LOG
export SLUICE_NVML_LIBRARY=$FAKE
# -C needs no configuration; gres.conf is read beside -f when there.
CONF=$TMP/none/sluice.conf
node_line() { # the machine's own NodeName= part, without Gres=
    "$SLUICED" -C -f "$CONF" -N node01 | head -1 | sed 's/ Gres=.*//'
}
base=$(node_line)
case $base in
"NodeName=node01 CPUs="*" Boards=1 SocketsPerBoard="*" CoresPerSocket="*" ThreadsPerCore="*" RealMemory="*)
    ok "-C prints a NodeName= line with the machine's topology and memory" ;;
*) not_ok "-C prints a NodeName= line"; echo "# $base" ;;
esac

# 1. two GPUs from NVML, the second linked to the first twice
got=$(FAKE_NVML_COUNT=2 FAKE_NVML_NVLINK=0-1,0-1 FAKE_NVML_MEMORY_MIB=1000 \
    "$SLUICED" -C -f "$CONF" -N node01)
is "$got" "$base Gres=gpu:h200:2
# gres.conf (GPUs found by NVML):
NodeName=node01 AutoDetect=nvml
NodeName=node01 Name=gpu Type=h200 File=/dev/nvidia0 Links=-1,2
NodeName=node01 Name=gpu Type=h200 File=/dev/nvidia1 Links=2,-1
#   gpu0 type=h200 file=/dev/nvidia0 name=\"NVIDIA H200\" uuid=GPU-fa4e0000-0000-0000-0000-000000000000 pci=00000000:10:00.0 memory_mib=1000 nvlinks=-1,2
#   gpu1 type=h200 file=/dev/nvidia1 name=\"NVIDIA H200\" uuid=GPU-fa4e0000-0000-0000-0000-000000000001 pci=00000000:11:00.0 memory_mib=1000 nvlinks=2,-1" \
    "-C with two NVML GPUs: Gres=gpu:h200:2, AutoDetect and File= lines, NVLinks"

got=$(FAKE_NVML_COUNT=8 FAKE_NVML_NAMES="NVIDIA A100-SXM4-80GB" \
    "$SLUICED" -C -f "$CONF" -N node01 | sed -n '1p;4p')
is "$got" "$base Gres=gpu:a100:8
NodeName=node01 Name=gpu Type=a100 File=/dev/nvidia[0-7]" \
    "-C with eight A100s: type a100, files compressed"

# 2. NVML present but failing, empty, or absent
got=$(FAKE_NVML_COUNT=4 FAKE_NVML_INIT_FAIL=1 "$SLUICED" -C -f "$CONF" -N node01)
is "$got" "$base
# no GPUs: no gres.conf and nvmlInit failed: Driver Not Loaded" \
    "-C with a failing nvmlInit says so"
got=$(FAKE_NVML_COUNT=0 "$SLUICED" -C -f "$CONF" -N node01)
is "$got" "$base
# no GPUs: no gres.conf and NVML found no GPUs" "-C with NVML but no GPUs"
got=$(SLUICE_NVML_LIBRARY=$TMP/libnvidia-ml.so.1 "$SLUICED" -C -f "$CONF" -N node01 2>&1)
is "$got" "$base
# no GPUs: no gres.conf and NVML not found: install the NVIDIA driver or add gres.conf" \
    "-C without the NVML library: the seed's pitfall in one line"

# 3. gres.conf beside the configuration: File= lines count what exists
mkdir -p "$TMP/etc" "$TMP/dev"
CONF=$TMP/etc/sluice.conf
touch "$TMP/dev/nvidia0" "$TMP/dev/nvidia2"
cat >"$TMP/etc/gres.conf" <<EOF
NodeName=node01 Name=gpu Type=h200 File=$TMP/dev/nvidia[0-2]
NodeName=node02 Name=gpu Count=4
EOF
got=$("$SLUICED" -C -f "$CONF" -N node01)
is "$got" "$base Gres=gpu:h200:2
# gres.conf (GPUs declared in gres.conf):
NodeName=node01 Name=gpu Type=h200 File=$TMP/dev/nvidia[0,2]
#   gpu0 type=h200 file=$TMP/dev/nvidia0
#   gpu1 type=h200 file=$TMP/dev/nvidia2" \
    "-C with File=nvidia[0-2] where nvidia1 is missing: two GPUs"
got=$("$SLUICED" -C -f "$CONF" -N node02 | sed -n '1p;3p')
is "$got" "${base/node01/node02} Gres=gpu:4
NodeName=node02 Name=gpu Count=4" "-C with a count-only line"
echo "AutoDetect=nvml" >>"$TMP/etc/gres.conf"
got=$(FAKE_NVML_COUNT=1 FAKE_NVML_MINORS=2 "$SLUICED" -C -f "$CONF" -N node01 | sed -n '1p;3,4p')
is "$got" "$base Gres=gpu:h200:1
NodeName=node01 AutoDetect=nvml
NodeName=node01 Name=gpu Type=h200 File=/dev/nvidia2" \
    "AutoDetect=nvml in gres.conf: the GPUs NVML finds win over File="

# 4. a node configured Gres=gpu:4 that finds none says why in its log
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 47824)
mkdir -p "$TMP/node"
cat >"$TMP/node/sluice.conf" <<EOF
ClusterName=t24
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
AuthType=auth/key
AuthInfo=$TMP/node/sluice.key
SlurmdSpoolDir=$TMP/spool/%n
GresTypes=gpu
NodeName=node01 CPUs=1 RealMemory=100 Gres=gpu:4
PartitionName=gpu Nodes=node01 Default=YES
EOF
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/node/sluice.key"
chmod 600 "$TMP/node/sluice.key"
SLUICE_NVML_LIBRARY=$TMP/libnvidia-ml.so.1 "$SLUICED" -f "$TMP/node/sluice.conf" \
    -N node01 -D -L "$TMP/node.log" 2>/dev/null &
PID=$!
for _ in $(seq 50); do grep -q "gres_note" "$TMP/node.log" 2>/dev/null && break; sleep 0.1; done
got=$(grep -o 'gres=.*gpus=0\|gres_note=.*' "$TMP/node.log")
is "$got" 'gres="" gres_conf=(none) gpus=0
gres_note="no gres.conf and NVML not found: install the NVIDIA driver or add gres.conf"' \
    "Gres=gpu:4 configured, no GPUs found: the node logs the note it registers"
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
PID=

echo "1..$n"
[ "$failed" -eq 0 ]
