/*
 * sluice run / srun: a job step inside an allocation (outside one, srun
 * first makes its own: srun_alloc.c).  srun listens for
 * the step's supervisors, asks the controller for the step (STEP_CREATE,
 * waiting while the job's resources are busy), then relays the tasks' I/O
 * and srun's signals (srun_io.c) and exits as the worst task did.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/slurmopts.h"
#include "cli/srun.h"
#include "common/clock.h"
#include "common/libcrypto.h"
#include "common/proto.h"
#include "common/xalloc.h"

extern char **environ;

/* Slurm's value of %a for a job that is not part of an array. */
#define SRUN_NO_ARRAY_TASK 4294967294u
/* The backoff between STEP_CREATE tries while the nodes are busy. */
#define SRUN_RETRY_FIRST_MS 200
#define SRUN_RETRY_MAX_MS 1000

struct srun {
    struct srun_opts o;
    struct cli_client *client;
    int sig_fd, listen_fd, input_fd;
    char *host;
    uint16_t port;
    struct srun_step step;
    uint8_t key[STEPIO_KEY_LEN];
    json_t *reply;
    struct srun_alloc *alloc; /* the job srun made (outside a job) */
};

/* An informational line ("srun: Step created for StepId=12.3"); -Q
 * silences these, never errors. */
static void srun_info(const struct srun *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void srun_info(const struct srun *r, const char *fmt, ...)
{
    va_list ap;

    if (r->o.quiet)
        return;
    fflush(stdout);
    fprintf(stderr, "%s: ", cli_prog());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/*
 * The address the supervisors connect to: $SLUICE_SRUN_HOST, else the
 * NodeAddr of the node srun runs on (SLURMD_NODENAME, set in every job),
 * else this end of the TCP connection to the controller (a login host:
 * the address the cluster reaches it at), else (on the controller's unix
 * socket) the loopback.
 */
static char *srun_pick_host(const struct cli_client *cl)
{
    const struct conf *conf = cli_client_conf(cl);
    const char *v = getenv("SLUICE_SRUN_HOST");
    const struct conf_node *n;
    char addr[INET6_ADDRSTRLEN];

    if (v != NULL && v[0] != '\0')
        return xstrdup(v);
    v = getenv("SLURMD_NODENAME");
    if (v != NULL && (n = conf_node_find(conf, v)) != NULL &&
        n->addr[0] != '\0')
        return xstrdup(n->addr);
    if (cli_client_local_addr(cl, addr, sizeof(addr)) == 0)
        return xstrdup(addr);
    return xstrdup("127.0.0.1");
}

/* Listen on host (an address), or on every address when host is a name
 * the supervisors resolve themselves; any free port. */
static int srun_listen(struct srun *r, struct err *e)
{
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    socklen_t len = sizeof(*in4);
    int fd;

    in4->sin_family = AF_INET;
    if (inet_pton(AF_INET6, r->host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        len = sizeof(*in6);
    } else if (inet_pton(AF_INET, r->host, &in4->sin_addr) != 1) {
        in4->sin_addr.s_addr = htonl(INADDR_ANY);
    }
    /* Non-blocking: a connection reset between poll and accept must not
     * stall the loop. */
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 ||
        listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        err_set(e, "cannot listen on %s for the step's I/O: %s", r->host,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    r->listen_fd = fd;
    r->port = ntohs(ss.ss_family == AF_INET6 ? in6->sin6_port : in4->sin_port);
    return 0;
}

/* Wait ms for a signal; the signal that cancels the wait, or 0. */
static int srun_wait(const struct srun *r, int ms)
{
    struct pollfd p = {.fd = r->sig_fd, .events = POLLIN};
    int sig;

    if (poll(&p, 1, ms) <= 0)
        return 0;
    while ((sig = srun_signal_next(r->sig_fd)) != 0)
        if (sig != SIGCONT && sig != SIGUSR1 && sig != SIGUSR2)
            return sig;
    return 0;
}

/* STEP_CREATE, again while the job's nodes are busy (EAGAIN) unless -I. */
static int srun_create(struct srun *r, json_t *req)
{
    int64_t start = clock_mono_ms();
    int delay = SRUN_RETRY_FIRST_MS, sig;
    bool waited = false, transport;
    struct err e;

    for (;;) {
        if (cli_client_call(r->client, PROTO_MSG_STEP_CREATE, req, &r->reply,
                            &transport, &e) == 0)
            break;
        if (transport || errno != EAGAIN || r->o.immediate_s == 0 ||
            (r->o.immediate_s > 0 &&
             clock_mono_ms() - start >= r->o.immediate_s * 1000LL)) {
            cli_error("Unable to create step for job %u: %s", r->o.job_id,
                      e.text);
            return -1;
        }
        if (!waited)
            srun_info(r,
                      "Job %u step creation temporarily disabled, "
                      "retrying (%s)",
                      r->o.job_id, e.text);
        waited = true;
        if ((sig = srun_wait(r, delay)) != 0) {
            cli_error("Cancelled pending job step with signal %d", sig);
            return -1;
        }
        delay = delay * 2 > SRUN_RETRY_MAX_MS ? SRUN_RETRY_MAX_MS : delay * 2;
    }
    cli_escape_json(r->reply);
    if (waited)
        srun_info(r, "Step created for StepId=%u.%lld", r->o.job_id,
                  (long long)json_integer_value(
                      json_object_get(r->reply, "step_id")));
    return 0;
}

/* What %x, %u, %A and %a stand for, from the job's environment. */
static void srun_step_names(struct srun *r)
{
    const char *name = getenv("SLURM_JOB_NAME");
    const char *ajob = getenv("SLURM_ARRAY_JOB_ID");
    const char *atask = getenv("SLURM_ARRAY_TASK_ID");
    const struct passwd *pw = getpwuid(getuid());

    if (name == NULL || name[0] == '\0')
        name = json_string_value(json_object_get(r->reply, "name"));
    r->step.job_name = xstrdup(name ? name : "");
    r->step.user =
        pw ? xstrdup(pw->pw_name) : xasprintf("%u", (unsigned)getuid());
    r->step.array_job_id =
        ajob ? (uint32_t)strtoul(ajob, NULL, 10) : r->step.job_id;
    r->step.array_task_id =
        atask ? (uint32_t)strtoul(atask, NULL, 10) : SRUN_NO_ARRAY_TASK;
}

/* The step from the reply, and what srun needs before the tasks talk. */
static int srun_take_reply(struct srun *r, struct err *e)
{
    const char *key = json_string_value(json_object_get(r->reply, "key"));
    const char *warning =
        json_string_value(json_object_get(r->reply, "warning"));

    if (srun_step_from_reply(r->reply, &r->step, e) < 0 ||
        stepio_key_parse(key ? key : "", r->key, e) < 0)
        return -1;
    /* The handshakes need libcrypto: loaded now (some 10 ms), while the
     * nodes start their supervisors, rather than when the first one is
     * already waiting. */
    if (libcrypto_load(e) == NULL)
        return -1;
    srun_step_names(r);
    if (warning != NULL && warning[0] != '\0' && !r->o.quiet)
        fprintf(stderr, "%s: Warning: %s\n", cli_prog(), warning);
    if (r->o.verbose)
        srun_info(
            r, "StepId=%u.%u: %u tasks on %s (%s)", r->step.job_id,
            r->step.step_id, r->step.ntasks,
            json_string_value(json_object_get(r->reply, "node_list")),
            json_string_value(json_object_get(r->reply, "tasks_per_node")));
    if (r->o.input_task >= 0 && (uint32_t)r->o.input_task >= r->step.ntasks)
        return err_inval(e, "--input=%d: the step has %u tasks",
                         r->o.input_task, r->step.ntasks);
    return 0;
}

static int srun_open_input(struct srun *r, struct err *e)
{
    char *path;

    r->input_fd = -1;
    if (r->o.input_task == SRUN_INPUT_NONE)
        return 0;
    if (r->o.input_file == NULL) {
        r->input_fd = STDIN_FILENO;
        return 0;
    }
    path = srun_expand(r->o.input_file, &r->step, 0);
    r->input_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->input_fd < 0)
        err_set(e, "cannot open %s: %s", path, strerror(errno));
    free(path);
    return r->input_fd < 0 ? -1 : 0;
}

/* ---- the controller, while the step's nodes are connecting ---- */

static int srun_step_state(void *arg, char **lost, struct err *e)
{
    struct srun *r = arg;
    json_t *req, *reply = NULL, *st;
    const char *state, *reason, *gone;
    int rc;

    if (lost != NULL)
        *lost = NULL;
    req = json_pack("{s:[I],s:I}", "job_ids", (json_int_t)r->step.job_id,
                    "step_id", (json_int_t)r->step.step_id);
    rc = cli_client_call(r->client, PROTO_MSG_STEP_QUERY, req, &reply, NULL, e);
    json_decref(req);
    if (rc < 0)
        return -1;
    cli_escape_json(reply);
    st = json_array_get(json_object_get(reply, "steps"), 0);
    state = json_string_value(json_object_get(st, "state"));
    reason = json_string_value(json_object_get(st, "reason"));
    gone = json_string_value(json_object_get(st, "lost_nodes"));
    if (lost != NULL && gone != NULL && gone[0] != '\0')
        *lost = xstrdup(gone);
    rc = state != NULL && strcmp(state, "RUNNING") == 0;
    if (!rc)
        err_set(e, "%s",
                reason && reason[0] ? reason
                : state             ? state
                                    : "the step is gone");
    json_decref(reply);
    return rc;
}

static void srun_step_cancel(void *arg, int sig)
{
    struct srun *r = arg;
    json_t *req, *reply = NULL;
    struct err e;

    if (r->step.job_id == 0 || r->client == NULL)
        return; /* no step to end */
    req = json_pack("{s:I,s:I,s:i}", "job_id", (json_int_t)r->step.job_id,
                    "step_id", (json_int_t)r->step.step_id, "signal", sig);
    if (cli_client_call(r->client, PROTO_MSG_STEP_CANCEL, req, &reply, NULL,
                        &e) < 0 &&
        r->o.verbose)
        cli_error("cannot signal StepId=%u.%u: %s", r->step.job_id,
                  r->step.step_id, e.text);
    json_decref(req);
    json_decref(reply);
}

/* ---- the verb ---- */

static int srun_relay(struct srun *r, struct err *e)
{
    struct srun_io_conf c = {.prog = cli_prog(),
                             .listen_fd = r->listen_fd,
                             .sig_fd = r->sig_fd,
                             .step = &r->step,
                             .input_fd = r->input_fd,
                             .input_task = r->o.input_task,
                             .kill_on_bad_exit = r->o.kill_on_bad_exit,
                             .no_kill = r->o.no_kill,
                             .verbose = r->o.verbose,
                             .pty = r->o.pty,
                             .tty_fd = STDIN_FILENO,
                             .step_state = srun_step_state,
                             .step_cancel = srun_step_cancel,
                             .arg = r};
    struct srun_task_end *ends;
    struct srun_out *out;
    int rc;

    out = srun_out_create(&r->step, r->o.out_pattern, r->o.err_pattern,
                          r->o.label, r->o.unbuffered, r->o.out_append, e);
    if (out == NULL)
        return -1;
    ends = xcalloc(r->step.ntasks, sizeof(*ends));
    c.out = out;
    c.ends = ends;
    memcpy(c.key, r->key, sizeof(c.key));
    rc = srun_io_run(&c);
    srun_out_destroy(out);
    if (rc == 0) {
        srun_report(stderr, cli_prog(), &r->step, ends);
        /* --pty: the terminal's task decides, as in Slurm */
        rc = srun_exit_code(ends, r->o.pty ? 1 : r->step.ntasks);
    } else {
        rc = 1;
    }
    free(ends);
    return rc;
}

/* Everything up to the step's creation: 0; -1 with e; 1 when the error
 * was printed already. */
static int srun_start(struct srun *r, struct err *e)
{
    char cwd[4096];
    json_t *req;
    int rc;

    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return err_set(e, "cannot get the current directory: %s",
                       strerror(errno));
    if ((r->sig_fd = srun_signals_init(e)) < 0)
        return -1;
    r->client = cli_client_open(cli_conf_path(), -1, e);
    if (r->client == NULL)
        return -1;
    if (r->o.job_id == 0 && (rc = srun_alloc_start(&r->alloc, &r->o, r->client,
                                                   r->sig_fd, cwd, e)) != 0)
        return rc;
    r->host = srun_pick_host(r->client);
    if (srun_listen(r, e) < 0)
        return -1;
    req = srun_opts_request(&r->o, environ, cwd, r->host, r->port);
    rc = srun_create(r, req);
    json_decref(req);
    return rc < 0 ? 1 : 0;
}

static int srun_run(struct srun *r, int argc, char **argv)
{
    struct err e;
    int rc;

    if (srun_opts_parse(&r->o, argc, argv, environ, &e) < 0) {
        srun_opts_error(&r->o, e.text,
                        cli_slurm_face() ? "srun" : "sluice run");
        return 2;
    }
    if (!r->o.quiet)
        slurmopts_print(r->o.notes);
    if (r->o.help || r->o.usage) {
        srun_opts_help(cli_slurm_face() ? "srun" : "sluice run");
        return 0;
    }
    if (r->o.version) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    if (r->o.n_cmd == 0) {
        cli_error("no command given to execute (see '%s --help')",
                  cli_slurm_face() ? "srun" : "sluice run");
        return 2;
    }
    srun_pty_decide(&r->o, STDIN_FILENO, cli_prog());
    if ((rc = srun_start(r, &e)) < 0)
        cli_error("%s", e.text);
    if (rc != 0) {
        srun_alloc_fail(r->alloc);
        return 1;
    }
    if (srun_take_reply(r, &e) < 0 || srun_open_input(r, &e) < 0 ||
        (rc = srun_relay(r, &e)) < 0) {
        cli_error("%s", e.text);
        srun_step_cancel(r, 0);
        srun_alloc_fail(r->alloc);
        return 1;
    }
    return srun_alloc_finish(r->alloc, rc);
}

int cmd_srun(int argc, char **argv)
{
    struct srun r = {.sig_fd = -1, .listen_fd = -1, .input_fd = -1};
    int rc;

    cli_set_prog(argv[0]);
    rc = srun_run(&r, argc, argv);
    srun_tty_restore(); /* --pty: whatever way srun_run ended */
    if (r.listen_fd >= 0)
        close(r.listen_fd);
    if (r.input_fd > STDIN_FILENO)
        close(r.input_fd);
    cli_client_close(r.client);
    json_decref(r.reply);
    srun_step_clear(&r.step);
    srun_alloc_destroy(r.alloc);
    srun_opts_clear(&r.o);
    free(r.host);
    return rc;
}
