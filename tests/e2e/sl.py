# A raw client for the controller's wire protocol (docs/protocol-framing.md),
# for the adversarial tests: frames built by hand, without a credential
# (the unix socket identifies the peer by SO_PEERCRED; on TCP such a frame
# must be refused).  Standard library only.
import json
import os
import socket
import struct

HDR = '>IIHHBBHI'   # magic, body_len, cred_len, type, version, flags, reserved, seq
MAGIC = 0x534C4345
PING, SUBMIT, JOB_QUERY, JOB_CANCEL, JOB_UPDATE, JOB_ACCT = 2, 10, 11, 12, 15, 16
PART_UPDATE = 23
NODE_REGISTER, NODE_HEARTBEAT, JOB_LAUNCH, JOB_END = 30, 31, 32, 35


def frame(t, body, seq=1, flags=0):
    b = body if isinstance(body, bytes) else \
        json.dumps(body, separators=(',', ':')).encode()
    return struct.pack(HDR, MAGIC, len(b), 0, t, 1, flags, 0, seq) + b


def header(t, body_len, seq=1, cred_len=0):
    return struct.pack(HDR, MAGIC, body_len, cred_len, t, 1, 0, 0, seq)


def _n(s, k):
    d = b''
    while len(d) < k:
        c = s.recv(k - len(d))
        if not c:
            raise EOFError
        d += c
    return d


def recv_frame(s):
    m, bl, cl, t, v, f, r, seq = struct.unpack(HDR, _n(s, 20))
    _n(s, cl)
    return t, f, seq, json.loads(_n(s, bl))


def connect(path=None):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path or os.environ['SOCK'])
    return s


def connect_tcp(port=None):
    s = socket.socket()
    s.connect(('127.0.0.1', int(port or os.environ['PORT'])))
    return s


def call(t, body, path=None):
    """One request on a fresh unix connection; the reply's body."""
    s = connect(path)
    try:
        s.sendall(frame(t, body))
        return recv_frame(s)[3]
    finally:
        s.close()
