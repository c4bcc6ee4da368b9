/*
 * srun --pty on the user's side (src/cli/srun_pty.c and the --pty option):
 * the terminal helper on a pseudo-terminal pair made here (raw mode
 * applied, the very same settings back by srun_tty_restore, by exit()
 * and by a fatal signal), the size as WINSIZE data, what --pty implies
 * and refuses, and Slurm's fallback when stdin is not a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include <cmocka.h>

#include "cli/opt.h"
#include "cli/srun.h"

/* A pseudo-terminal pair: the master in *master, the slave returned. */
static int pty_pair(int *master)
{
    char name[128];
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;

    assert_true(m >= 0);
    assert_int_equal(grantpt(m), 0);
    assert_int_equal(unlockpt(m), 0);
    assert_int_equal(ptsname_r(m, name, sizeof(name)), 0);
    s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    assert_true(s >= 0);
    *master = m;
    return s;
}

static void assert_same_termios(const struct termios *a,
                                const struct termios *b)
{
    assert_int_equal(a->c_iflag, b->c_iflag);
    assert_int_equal(a->c_oflag, b->c_oflag);
    assert_int_equal(a->c_cflag, b->c_cflag);
    assert_int_equal(a->c_lflag, b->c_lflag);
    assert_memory_equal(a->c_cc, b->c_cc, sizeof(a->c_cc));
    assert_int_equal(cfgetispeed(a), cfgetispeed(b));
    assert_int_equal(cfgetospeed(a), cfgetospeed(b));
}

static void assert_raw(int fd)
{
    struct termios t;

    assert_int_equal(tcgetattr(fd, &t), 0);
    assert_int_equal(t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0);
    assert_int_equal(t.c_iflag & (ICRNL | IXON | BRKINT | ISTRIP), 0);
    assert_int_equal(t.c_oflag & OPOST, 0);
    assert_int_equal(t.c_cflag & CSIZE, CS8);
    assert_int_equal(t.c_cc[VMIN], 1);
    assert_int_equal(t.c_cc[VTIME], 0);
}

static void test_raw_and_back(void **state)
{
    struct termios before, after;
    struct err e;
    int m, s = pty_pair(&m);

    (void)state;
    /* settings of our own, so that "back" is not just the default */
    assert_int_equal(tcgetattr(s, &before), 0);
    before.c_cc[VINTR] = 7;
    before.c_lflag &= ~(tcflag_t)ECHOE;
    assert_int_equal(tcsetattr(s, TCSANOW, &before), 0);
    assert_int_equal(tcgetattr(s, &before), 0);
    assert_false(srun_tty_is_raw());
    assert_int_equal(srun_tty_raw(s, &e), 0);
    assert_true(srun_tty_is_raw());
    assert_raw(s);
    /* twice: still the first settings saved */
    assert_int_equal(srun_tty_raw(s, &e), 0);
    srun_tty_restore();
    assert_false(srun_tty_is_raw());
    assert_int_equal(tcgetattr(s, &after), 0);
    assert_same_termios(&before, &after);
    /* again: nothing more to do, and nothing changes */
    srun_tty_restore();
    assert_int_equal(tcgetattr(s, &after), 0);
    assert_same_termios(&before, &after);
    /* not a terminal: an error, and nothing to restore */
    int null = open("/dev/null", O_RDWR);
    assert_int_equal(srun_tty_raw(null, &e), -1);
    assert_non_null(strstr(e.text, "tcgetattr"));
    assert_false(srun_tty_is_raw());
    close(null);
    close(s);
    close(m);
}

/* In a child: raw on s, then end by how (0: exit(), else that signal). */
static int child_ends(int s, int how)
{
    struct err e;
    pid_t pid = fork();
    int st;

    if (pid == 0) {
        if (srun_tty_raw(s, &e) < 0)
            _exit(90);
        if (how == 0)
            exit(3); /* the atexit hook */
        raise(how);
        _exit(91);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/* exit() and the fatal signals put the terminal back; the signal still
 * ends the process as it would have. */
static void test_restore_on_the_way_out(void **state)
{
    static const int how[] = {0, SIGSEGV, SIGABRT, SIGALRM, SIGBUS};
    struct termios before, after;
    int m, s = pty_pair(&m);

    (void)state;
    assert_int_equal(tcgetattr(s, &before), 0);
    for (size_t i = 0; i < sizeof(how) / sizeof(*how); i++) {
        int rc = child_ends(s, how[i]);
        assert_int_equal(rc, how[i] == 0 ? 3 : 100 + how[i]);
        assert_int_equal(tcgetattr(s, &after), 0);
        assert_same_termios(&before, &after);
    }
    close(s);
    close(m);
}

static void test_winsize(void **state)
{
    struct winsize ws = {.ws_row = 33, .ws_col = 111};
    char size[STEPIO_WINSIZE_MAX];
    uint16_t r, c;
    size_t len;
    struct err e;
    int m, s = pty_pair(&m), null = open("/dev/null", O_RDWR);

    (void)state;
    assert_int_equal(ioctl(m, TIOCSWINSZ, &ws), 0);
    assert_int_equal(srun_tty_winsize(s, size, &len, &e), 0);
    assert_string_equal(size, "33 111");
    assert_int_equal(len, 6);
    assert_int_equal(stepio_winsize_parse(size, len, &r, &c, &e), 0);
    assert_int_equal(r, 33);
    assert_int_equal(c, 111);
    assert_int_equal(srun_tty_winsize(null, size, &len, &e), -1);
    assert_string_equal(e.text,
                        "ioctl(TIOCGWINSZ): Inappropriate ioctl for device");
    close(null);
    close(s);
    close(m);
}

static int parse(struct srun_opts *o, const char *line, struct err *e)
{
    static char *env[] = {"SLURM_JOB_ID=12", NULL};
    char **words;
    int n, rc;

    words = opt_split(line, &n, e);
    assert_non_null(words);
    rc = srun_opts_parse(o, n, words, env, e);
    /* o->cmd points into words: the tests look at the options only */
    o->cmd = NULL;
    o->n_cmd = 0;
    opt_split_free(words);
    return rc;
}

/* --pty implies -u and stdin to task 0, goes into STEP_CREATE, and
 * refuses -o/-e/-i as Slurm's srun does. */
static void test_option(void **state)
{
    static const char *const refused[] = {
        "srun --pty -o out.txt bash",
        "srun --pty -e err.txt bash",
        "srun --pty -i none bash",
        "srun -i in.txt --pty bash",
    };
    struct srun_opts o;
    struct err e;
    json_t *req;
    char *cmd[] = {"bash"};

    (void)state;
    assert_int_equal(parse(&o, "srun --pty bash", &e), 0);
    assert_true(o.pty);
    assert_true(o.unbuffered);
    assert_int_equal(o.input_task, 0);
    o.cmd = cmd;
    o.n_cmd = 1;
    req = srun_opts_request(&o, NULL, "/", "h", 1);
    assert_true(json_is_true(json_object_get(req, "pty")));
    assert_int_equal(json_integer_value(json_object_get(req, "input_task")), 0);
    json_decref(req);
    srun_opts_clear(&o);
    assert_int_equal(parse(&o, "srun hostname", &e), 0);
    assert_false(o.pty);
    o.cmd = cmd;
    o.n_cmd = 1;
    req = srun_opts_request(&o, NULL, "/", "h", 1);
    assert_null(json_object_get(req, "pty"));
    json_decref(req);
    srun_opts_clear(&o);
    for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
        assert_int_equal(parse(&o, refused[i], &e), -1);
        assert_string_equal(
            e.text, "--error/--input/--output are incompatible with --pty");
        srun_opts_clear(&o);
    }
}

/* stdin not a terminal: Slurm's two lines, and the step runs without a
 * terminal (stdin to every task again, -u kept); a terminal keeps it. */
static void test_not_a_terminal(void **state)
{
    struct srun_opts o;
    struct err e;
    char buf[512] = "";
    int null = open("/dev/null", O_RDWR), saved = dup(2), m, s;
    FILE *fp = tmpfile();

    (void)state;
    assert_int_equal(parse(&o, "srun --pty bash", &e), 0);
    fflush(stderr);
    dup2(fileno(fp), 2);
    srun_pty_decide(&o, null, "srun");
    fflush(stderr);
    dup2(saved, 2);
    rewind(fp);
    buf[fread(buf, 1, sizeof(buf) - 1, fp)] = '\0';
    assert_string_equal(
        buf, "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\n"
             "srun: error: Not using a pseudo-terminal, disregarding --pty "
             "option\n");
    assert_false(o.pty);
    assert_true(o.unbuffered);
    assert_int_equal(o.input_task, SRUN_INPUT_ALL);
    srun_opts_clear(&o);
    s = pty_pair(&m);
    assert_int_equal(parse(&o, "srun --pty bash", &e), 0);
    srun_pty_decide(&o, s, "srun");
    assert_true(o.pty);
    assert_int_equal(o.input_task, 0);
    srun_opts_clear(&o);
    fclose(fp);
    close(saved);
    close(null);
    close(s);
    close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_and_back),
        cmocka_unit_test(test_restore_on_the_way_out),
        cmocka_unit_test(test_winsize),
        cmocka_unit_test(test_option),
        cmocka_unit_test(test_not_a_terminal),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
