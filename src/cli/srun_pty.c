/*
 * srun --pty on the user's side: the local terminal in raw mode while the
 * remote task 0 has it (every key, ^C included, goes to the remote
 * terminal as a byte), put back on every way out of srun (the loop's end,
 * an error, exit(), a fatal signal), and its size as WINSIZE data.
 */
#include "cli/srun.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* The terminal in raw mode and its settings before: read by the signal
 * handlers, so fd is written last when set and first when cleared. */
static struct termios tty_saved;
static volatile sig_atomic_t tty_fd = -1;

/* Signals that end srun without its loop hearing of them. */
static const int tty_fatal[] = {SIGABRT, SIGBUS,    SIGFPE,  SIGILL,
                                SIGSEGV, SIGSYS,    SIGXCPU, SIGXFSZ,
                                SIGALRM, SIGVTALRM, SIGPROF};

/* Async-signal-safe: tcsetattr is. */
static void tty_put_back(int how)
{
    int fd = tty_fd;

    if (fd < 0)
        return;
    tty_fd = -1;
    while (tcsetattr(fd, how, &tty_saved) < 0 && errno == EINTR)
        ;
}

static void tty_fatal_handler(int sig)
{
    int saved = errno;

    tty_put_back(TCSANOW);
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

static void tty_atexit(void)
{
    srun_tty_restore();
}

int srun_tty_raw(int fd, struct err *e)
{
    static bool hooked;
    struct termios raw;

    if (tty_fd >= 0)
        return 0;
    if (tcgetattr(fd, &tty_saved) < 0)
        return err_set(e, "tcgetattr: %s", strerror(errno));
    /* each time: whoever took these signals since, srun wants them now */
    for (size_t i = 0; i < sizeof(tty_fatal) / sizeof(*tty_fatal); i++) {
        struct sigaction sa = {.sa_handler = tty_fatal_handler}, old;
        sigemptyset(&sa.sa_mask);
        /* a signal someone ignores stays ignored */
        if (sigaction(tty_fatal[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(tty_fatal[i], &sa, NULL);
    }
    if (!hooked)
        atexit(tty_atexit);
    hooked = true;
    raw = tty_saved;
    cfmakeraw(&raw);
    tty_fd = fd; /* before the change: a signal now still puts it back */
    if (tcsetattr(fd, TCSANOW, &raw) < 0) {
        int saved = errno;
        tty_fd = -1;
        errno = saved;
        return err_set(e, "tcsetattr: %s", strerror(saved));
    }
    return 0;
}

void srun_tty_restore(void)
{
    /* after what srun wrote in raw mode has gone out */
    tty_put_back(TCSADRAIN);
}

bool srun_tty_is_raw(void)
{
    return tty_fd >= 0;
}

int srun_tty_winsize(int fd, char out[STEPIO_WINSIZE_MAX], size_t *len,
                     struct err *e)
{
    struct winsize ws;

    if (ioctl(fd, TIOCGWINSZ, &ws) < 0)
        return err_set(e, "ioctl(TIOCGWINSZ): %s", strerror(errno));
    *len = stepio_winsize_format(ws.ws_row, ws.ws_col, out);
    return 0;
}

void srun_pty_decide(struct srun_opts *o, int fd, const char *prog)
{
    char size[STEPIO_WINSIZE_MAX];
    size_t len;
    struct err e;

    if (!o->pty || srun_tty_winsize(fd, size, &len, &e) == 0)
        return;
    /* Slurm's srun: the same two lines, and the command runs anyway,
     * without a terminal (its -u stays) */
    fprintf(stderr, "%s: error: %s\n", prog, e.text);
    fprintf(stderr,
            "%s: error: Not using a pseudo-terminal, disregarding "
            "--pty option\n",
            prog);
    o->pty = false;
    o->input_task = SRUN_INPUT_ALL;
}
