/*
 * Internals of the step supervisor shared by stepd.c (start, tasks, end)
 * and stepd_io.c (the relay loop).  Not for other modules.
 */
#ifndef SLUICE_NODED_STEPD_INT_H
#define SLUICE_NODED_STEPD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/stepio.h"
#include "noded/stepd.h"
#include "noded/stepusage.h"

/* Bytes queued for srun beyond which the tasks' output is not read (they
 * wait on their pipes), and for a task's stdin beyond which srun is not. */
#define STEPD_OUT_HIGH (8u << 20)
#define STEPD_IN_HIGH (4u << 20)
/* How much of a task's pipe one frame takes. */
#define STEPD_READ_MAX (64u << 10)
/* How long the tasks' pipes may stay open once every task ended (held by
 * a process that left the step), and how long DONE may take to reach
 * srun. */
#define STEPD_DRAIN_MS 2000
#define STEPD_FLUSH_MS 10000

struct stepd_buf {
    uint8_t *p;
    size_t len, cap;
};

struct stepd_task {
    uint32_t id; /* global */
    pid_t pid;
    int in, out, err; /* the supervisor's ends; -1 once closed */
    struct stepd_buf stdin_q;
    bool stdin_eof; /* close in once stdin_q is written */
    bool exited, reaped, eof_sent, exit_sent;
    bool on_pty;    /* task 0 of a --pty step: in/out are the master's */
    bool own_group; /* a --pty step's other task on task 0's node: a
                       group of its own (task 0's is in another session) */
    int exit_code, sig;
    struct stepusage_task use;
};

struct stepd {
    const struct stepd_args *a;
    const struct step_launch *s;
    struct stepd_task *t;
    size_t n;
    pid_t pgid;
    int sock; /* srun; -1 once gone */
    struct stepio io;
    struct stepd_buf out, in; /* frames to srun; bytes from srun */
    int ctl, sigfd;
    int64_t start_time;
    int64_t limit_ms, kill_ms, usage_ms, drain_ms; /* monotonic; 0: none */
    bool killing;
    char reason[32];
    int pty_master;      /* --pty: the master, on task 0's node; -1: none */
    char pty_slave[128]; /* its slave's path */
};

/* stepd_loop: relay until every task ended and its output went out. */
void stepd_loop(struct stepd *d);

/* stepd_send: a frame to srun (dropped once srun is gone). */
void stepd_send(struct stepd *d, uint8_t type, uint32_t task, const void *data,
                size_t len);
/* stepd_message: a MESSAGE line to srun. */
void stepd_message(struct stepd *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* stepd_kill: end the step: reason (may be "") says what srun is told;
 * SIGCONT and SIGTERM now, SIGKILL after wait_s. */
void stepd_kill(struct stepd *d, const char *reason, uint32_t wait_s);
/* stepd_signal: sig to every process of the step. */
void stepd_signal(struct stepd *d, int sig);
/* stepd_signal_groups: sig to the step's process groups (without its
 * cgroup: processes that left them are missed). */
void stepd_signal_groups(struct stepd *d, int sig);

/* stepd_reap: note the tasks that ended (all reaped but task 0, whose pid
 * is the group's: reaped at the very end). */
void stepd_reap(struct stepd *d);
/* stepd_sample: usage of every task now, written to the spool's usage. */
void stepd_sample(struct stepd *d);

int64_t stepd_now_ms(void);

/* stepd_srun_recv: read what srun sent into d->in (once); -1 when srun is
 * gone (the step is then ended, as for any loss of srun). */
int stepd_srun_recv(struct stepd *d);

/* ---- --pty: stepd_pty.c ---- */

/* stepd_pty_open: the pseudo-terminal of task 0 (d->pty_master, non-
 * blocking, and d->pty_slave).  -1 with e. */
int stepd_pty_open(struct stepd *d, struct err *e);
/* stepd_pty_task_fds: t's supervisor ends in, out: duplicates of the
 * master.  -1 with errno. */
int stepd_pty_task_fds(struct stepd *d, struct stepd_task *t);
/*
 * stepd_pty_child: in task 0's process, still privileged: a session of
 * its own, the slave opened as its controlling terminal and given to the
 * step's user.  Returns the slave (close-on-exec: the caller dup2s it on
 * 0-2); -1 after telling fd why.
 */
int stepd_pty_child(struct stepd *d, int fd);
/*
 * stepd_pty_first_size: before task 0 starts, take srun's first WINSIZE
 * (srun sends it at once) so that the task starts with its size; waits
 * at most ms, and leaves any other frame in d->in for the loop.
 */
void stepd_pty_first_size(struct stepd *d, int ms);
/* stepd_pty_winsize: a WINSIZE frame: TIOCSWINSZ on the master (the
 * kernel sends SIGWINCH to the terminal's foreground group).  A frame
 * that does not parse is reported to srun and ignored. */
void stepd_pty_winsize(struct stepd *d, const struct stepio_msg *m);
/* stepd_pty_veof: what STDIN_EOF writes to the terminal: its EOF
 * character (VEOF, ^D) while it is in canonical mode (a reader then sees
 * the end of its input); -1 in raw mode, where no byte means EOF. */
int stepd_pty_veof(const struct stepd *d);

#endif
