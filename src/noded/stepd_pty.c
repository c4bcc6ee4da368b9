/*
 * srun --pty on the node: task 0 of the step runs on a pseudo-terminal
 * whose master the supervisor relays (its output as task 0's STDOUT, STDIN
 * written to it, WINSIZE as TIOCSWINSZ); the task is the leader of a
 * session of its own with the slave as its controlling terminal, so the
 * terminal's line discipline turns ^C, ^Z and ^\ into signals for the
 * task's foreground process group, as on a local terminal.
 */
#include "noded/stepd_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "noded/supcommon.h"

int stepd_pty_open(struct stepd *d, struct err *e)
{
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

    if (fd < 0 || grantpt(fd) < 0 || unlockpt(fd) < 0 ||
        ptsname_r(fd, d->pty_slave, sizeof(d->pty_slave)) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
        int saved = errno;
        err_set(e, "cannot open a pseudo-terminal: %s", strerror(saved));
        if (fd >= 0)
            close(fd);
        errno = saved;
        return -1;
    }
    d->pty_master = fd;
    return 0;
}

int stepd_pty_task_fds(struct stepd *d, struct stepd_task *t)
{
    /* Two descriptors of the one master: the relay closes the task's
     * stdin when the task ends and its stdout at EIO (every slave closed:
     * all output read); d->pty_master stays for the ioctls. */
    t->in = fcntl(d->pty_master, F_DUPFD_CLOEXEC, 3);
    t->out = fcntl(d->pty_master, F_DUPFD_CLOEXEC, 3);
    t->err = -1;
    if (t->in < 0 || t->out < 0) {
        int saved = errno;
        if (t->in >= 0)
            close(t->in);
        if (t->out >= 0)
            close(t->out);
        t->in = t->out = -1;
        errno = saved;
        return -1;
    }
    return 0;
}

int stepd_pty_child(struct stepd *d, int fd)
{
    int slave;

    /* setsid first: opening the slave as a session leader without a
     * terminal makes it the controlling one; TIOCSCTTY says so anyway */
    if (setsid() < 0) {
        sup_tell(fd, errno, "setsid: %s", strerror(errno));
        return -1;
    }
    slave = open(d->pty_slave, O_RDWR | O_CLOEXEC);
    if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
        sup_tell(fd, errno, "cannot open %s as the task's terminal: %s",
                 d->pty_slave, strerror(errno));
        return -1;
    }
    /* the user's terminal, as a login gives it (mesg, write, tty) */
    if (geteuid() == 0 &&
        (fchown(slave, d->s->uid, (gid_t)-1) < 0 || fchmod(slave, 0620) < 0)) {
        sup_tell(fd, errno, "cannot give %s to uid %u: %s", d->pty_slave,
                 (unsigned)d->s->uid, strerror(errno));
        return -1;
    }
    return slave;
}

/* The first frame in d->in, parsed on a copy of the channel's state: taken
 * (1) only when it is a WINSIZE, else left for the loop (0). */
static int take_size(struct stepd *d)
{
    struct stepio try = d->io;
    struct stepio_msg m;
    struct err e;
    size_t used;

    if (stepio_parse(&try, d->in.p, d->in.len, &m, &used, &e) != 1 ||
        m.type != STEPIO_WINSIZE)
        return 0;
    d->io = try;
    stepd_pty_winsize(d, &m);
    memmove(d->in.p, d->in.p + used, d->in.len - used);
    d->in.len -= used;
    return 1;
}

void stepd_pty_first_size(struct stepd *d, int ms)
{
    int64_t until = stepd_now_ms() + ms;

    while (d->sock >= 0 && !take_size(d)) {
        struct pollfd p = {.fd = d->sock, .events = POLLIN};
        int64_t left = until - stepd_now_ms();
        /* another frame first, or a frame cut short by the buffer: the
         * loop takes it from here */
        if (d->in.len >= STEPIO_OVERHEAD + STEPIO_MAX_DATA || left <= 0 ||
            poll(&p, 1, (int)left) <= 0 || stepd_srun_recv(d) < 0)
            return;
        if (d->in.len >= STEPIO_HDR_LEN && d->in.p[4] != STEPIO_WINSIZE)
            return;
    }
}

void stepd_pty_winsize(struct stepd *d, const struct stepio_msg *m)
{
    struct winsize ws = {0};
    struct err e;

    if (d->pty_master < 0)
        return; /* not the node of task 0: nothing to size */
    if (stepio_winsize_parse(m->data, m->len, &ws.ws_row, &ws.ws_col, &e) < 0) {
        stepd_message(d, "error: %s: %s", d->a->ctx->node, e.text);
        return;
    }
    ioctl(d->pty_master, TIOCSWINSZ, &ws);
}

int stepd_pty_veof(const struct stepd *d)
{
    struct termios t;

    if (d->pty_master < 0 || tcgetattr(d->pty_master, &t) < 0 ||
        !(t.c_lflag & ICANON) || t.c_cc[VEOF] == _POSIX_VDISABLE)
        return -1;
    return t.c_cc[VEOF];
}
