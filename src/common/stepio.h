/*
 * The I/O and control channel of a job step, between srun and the step
 * supervisor of each node of the step (docs/protocol.md, "Steps"): one TCP
 * connection per node, opened by the supervisor to the address srun gave
 * in STEP_CREATE, authenticated both ways with the step's key (32 random
 * bytes the controller makes for each step and gives only to the srun that
 * created it and to the step's nodes).  Nobody without the key can read a
 * task's output (the supervisor sends nothing before srun proved the key)
 * or inject input or signals (every frame carries a MAC).
 *
 * Handshake (all integers big-endian):
 *   supervisor -> srun   HELLO = "SLSTEPIO" | u32 job | u32 step |
 *                        u32 node_id | nonce_a[32]                (52 bytes)
 *   srun -> supervisor   nonce_b[32] | HMAC(key, "srun" | HELLO | nonce_b)
 *   supervisor -> srun   HMAC(key, "supv" | HELLO | nonce_b)
 * Session key: HMAC(key, "sess" | nonce_a | nonce_b).
 *
 * Then frames both ways:
 *   u32 len | u8 type | u8 0 | u16 0 | u32 task | data[len] | mac[32]
 * mac = HMAC-SHA256(session key, dir | u64 counter | header | data), dir 'S'
 * for frames from the supervisor and 'R' for frames from srun, the counter
 * counting that direction's frames from 0: a frame replayed, reordered,
 * reflected or cut off fails.
 *
 * The byte-level functions are pure (no I/O): each side writes and reads
 * its socket in its own loop.  The two handshake helpers block, with a
 * limit.
 */
#ifndef SLUICE_STEPIO_H
#define SLUICE_STEPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define STEPIO_KEY_LEN 32
#define STEPIO_KEY_HEX_LEN 64
#define STEPIO_NONCE_LEN 32
#define STEPIO_HELLO_LEN 52
#define STEPIO_HDR_LEN 12
#define STEPIO_MAC_LEN 32
#define STEPIO_OVERHEAD (STEPIO_HDR_LEN + STEPIO_MAC_LEN)
/* The most data one frame carries; a larger len is a broken stream. */
#define STEPIO_MAX_DATA (256u << 10)
/* How long either side waits for the other's half of the handshake. */
#define STEPIO_HANDSHAKE_MS 5000

/* "every task of the node", for STDIN and STDIN_EOF */
#define STEPIO_ALL_TASKS 0xffffffffu

enum stepio_type {
    /* supervisor -> srun */
    STEPIO_STDOUT = 1,    /* task's stdout bytes */
    STEPIO_STDERR = 2,    /* task's stderr bytes */
    STEPIO_OUT_EOF = 3,   /* task: its stdout and stderr are closed */
    STEPIO_TASK_EXIT = 4, /* task ended; data "EXIT_CODE SIGNAL" (ASCII,
                             e.g. "3 0", "0 9": killed by SIGKILL) */
    STEPIO_MESSAGE = 5,   /* a line for srun to print to its stderr, e.g.
                             "*** STEP 12.0 ON node01 CANCELLED AT
                             2026-12-02T11:00:00 DUE TO TIME LIMIT ***" or
                             "error: execve(): foo: No such file or
                             directory" (no newline) */
    STEPIO_DONE = 6,      /* every task of this node ended and all of its
                             output was sent; nothing follows */
    /* srun -> supervisor */
    STEPIO_STDIN = 16,     /* bytes for task's stdin (STEPIO_ALL_TASKS:
                              every task of the node) */
    STEPIO_STDIN_EOF = 17, /* close task's stdin (or every task's) */
    STEPIO_SIGNAL = 18,    /* data: the signal number (ASCII), to every
                              task of the node */
    STEPIO_KILL = 19,      /* end the step: SIGCONT and SIGTERM to every
                              task, SIGKILL after the step's kill_wait_s */
    STEPIO_WINSIZE = 20,   /* --pty: the terminal's size, data "ROWS COLS"
                              (ASCII), for the pseudo-terminal of task 0 */
};

/* One direction pair of an established connection. */
struct stepio {
    uint8_t session[STEPIO_KEY_LEN];
    uint64_t send_ctr, recv_ctr;
    char send_dir, recv_dir; /* 'S' or 'R' */
};

/* A frame decoded in place: data points into the caller's buffer. */
struct stepio_msg {
    uint8_t type;
    uint32_t task;
    const uint8_t *data;
    uint32_t len;
};

/* stepio_key_new: 32 random bytes (getrandom). -1 with e. */
int stepio_key_new(uint8_t key[STEPIO_KEY_LEN], struct err *e);
/* stepio_key_hex: key as 64 lowercase hex digits and a NUL. */
void stepio_key_hex(const uint8_t key[STEPIO_KEY_LEN],
                    char out[STEPIO_KEY_HEX_LEN + 1]);
/* stepio_key_parse: 64 hex digits into key; -1 with EINVAL and e. */
int stepio_key_parse(const char *hex, uint8_t key[STEPIO_KEY_LEN],
                     struct err *e);

/*
 * stepio_connect_handshake: the supervisor's side, on fd (a connected
 * blocking or non-blocking TCP socket; polled): send HELLO, check srun's
 * proof, send ours.  s is ready for frames afterwards ('S' direction).
 * -1 with e: EACCES ("srun at 127.0.0.1:4321 did not prove the step's
 * key"), ETIMEDOUT after timeout_ms, or the socket's error.
 */
int stepio_connect_handshake(int fd, const uint8_t key[STEPIO_KEY_LEN],
                             uint32_t job, uint32_t step, uint32_t node_id,
                             struct stepio *s, int timeout_ms, struct err *e);

/*
 * stepio_accept_handshake: srun's side, on an accepted fd: read HELLO
 * (its job and step must be job and step), prove the key, check the
 * supervisor's proof.  *node_id: the node (index in the step) that
 * connected.  -1 with e (EACCES: wrong step, bad proof; ETIMEDOUT).
 */
int stepio_accept_handshake(int fd, const uint8_t key[STEPIO_KEY_LEN],
                            uint32_t job, uint32_t step, uint32_t *node_id,
                            struct stepio *s, int timeout_ms, struct err *e);

/*
 * stepio_frame: one frame of type for task with data[0..len) (len at most
 * STEPIO_MAX_DATA) into out, which has room for len + STEPIO_OVERHEAD
 * bytes; returns the frame's length.  data may already sit at out +
 * STEPIO_HDR_LEN (read straight into the frame: no copy).  Advances s's
 * send counter.
 */
size_t stepio_frame(struct stepio *s, uint8_t type, uint32_t task,
                    const void *data, size_t len, uint8_t *out);

/*
 * stepio_parse: the next frame of buf[0..avail).  1: *m is set (pointing
 * into buf) and *used is the frame's length; 0: more bytes are needed;
 * -1 with EBADMSG and e: a length over STEPIO_MAX_DATA or a MAC that does
 * not verify (the stream must be closed).  Advances s's receive counter
 * on 1 only.
 */
int stepio_parse(struct stepio *s, const uint8_t *buf, size_t avail,
                 struct stepio_msg *m, size_t *used, struct err *e);

/* Room for a WINSIZE frame's data: "65535 65535" and a NUL. */
#define STEPIO_WINSIZE_MAX 12

/*
 * stepio_winsize_format: the data of a WINSIZE frame, "ROWS COLS" in
 * decimal, into out (NUL-terminated); returns its length (no NUL; the
 * frame carries no NUL).
 */
size_t stepio_winsize_format(uint16_t rows, uint16_t cols,
                             char out[STEPIO_WINSIZE_MAX]);
/*
 * stepio_winsize_parse: a WINSIZE frame's data[0..len): exactly two
 * decimal numbers 0..65535 without sign or leading zeros, one space
 * between them, nothing else.  -1 with EBADMSG and e otherwise (*rows and
 * *cols untouched).
 */
int stepio_winsize_parse(const void *data, size_t len, uint16_t *rows,
                         uint16_t *cols, struct err *e);

#endif
