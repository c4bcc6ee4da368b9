/*
 * sluicectld [-f CONFIG] [-D] [-L LOGFILE] [-v]: load the configuration,
 * take the pid file lock, bind the sockets, daemonize (unless -D), build
 * the controller and run its event loop until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/daemon.h"
#include "common/fsmode.h"
#include "common/log.h"
#include "common/sdnotify.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/net/listen.h"
#include "ctld/web/web.h"

struct opts {
    const char *conf_path;
    char *abs_conf; /* conf_path made absolute (owned), or NULL */
    const char *log_path;
    bool foreground;
    int verbose;
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sluicectld [-f CONFIG] [-D] [-L LOGFILE] [-v]\n"
            "  -f CONFIG   configuration (default $SLUICE_CONF, else "
            "%s)\n"
            "  -D          stay in the foreground\n"
            "  -L LOGFILE  log there (default: stderr with -D, else "
            "StateSaveLocation/sluicectld.log)\n"
            "  -v          more detail in the log (debug)\n",
            CONF_DEFAULT_PATH);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    int ch;

    memset(o, 0, sizeof(*o));
    o->conf_path = getenv("SLUICE_CONF");
    if (o->conf_path == NULL || o->conf_path[0] == '\0')
        o->conf_path = CONF_DEFAULT_PATH;
    while ((ch = getopt(argc, argv, "f:DL:vh")) != -1) {
        switch (ch) {
        case 'f':
            o->conf_path = optarg;
            break;
        case 'D':
            o->foreground = true;
            break;
        case 'L':
            o->log_path = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "sluicectld: unexpected argument \"%s\"\n",
                argv[optind]);
        usage(stderr);
        return -1;
    }
    /* absolute, for scontrol reconfigure after the chdir of daemonizing */
    if (o->conf_path[0] != '/' &&
        (o->abs_conf = realpath(o->conf_path, NULL)) != NULL)
        o->conf_path = o->abs_conf;
    return 0;
}

/* StateSaveLocation: 0711, so that users reach the socket in it by name
 * but list nothing; an existing one must be ours and not writable by
 * others, or anyone could swap the database or the socket. */
static int make_dirs(const char *path, struct err *e)
{
    if (fsmode_mkdir(path, 0711, e) < 0)
        return err_prefix(e, "StateSaveLocation");
    return 0;
}

/*
 * Fork into the background.  The parent waits on a pipe until the child
 * says it is serving (exit 0) or why it failed (printed, exit 1).
 */
static int daemonize(int *ready_fd, struct err *e)
{
    int p[2];
    pid_t pid;
    char msg[ERR_TEXT_MAX + 1];
    ssize_t n;

    if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0)
        return err_set(e, "cannot fork into the background: %s",
                       strerror(errno));
    if (pid > 0) {
        close(p[1]);
        n = read(p[0], msg, sizeof(msg) - 1);
        if (n == 1 && msg[0] == '\0')
            exit(0);
        msg[n > 0 ? n : 0] = '\0';
        fprintf(stderr, "sluicectld: %s\n",
                n > 0 ? msg : "the daemon exited during start-up");
        exit(1);
    }
    close(p[0]);
    setsid();
    *ready_fd = p[1];
    return 0;
}

static void report_ready(int *ready_fd, const char *error)
{
    if (*ready_fd < 0)
        return;
    if (error != NULL) {
        ssize_t rc = write(*ready_fd, error, strlen(error));
        (void)rc;
    } else if (write(*ready_fd, "", 1) != 1) {
        log_warn("cannot tell the parent that start-up is done");
    }
    close(*ready_fd);
    *ready_fd = -1;
}

struct run {
    const struct opts *o;
    struct conf *conf;
    struct auth *auth;
    int pid_fd, tcp_fd, unix_fd, web_fd, ready_fd;
    char *pid_path, *sock_path;
    FILE *log_fp;
    char *log_path; /* the file log_fp writes, for reopening */
    struct event_base *base;
    /* scontrol reconfigure: the configuration to rebuild on, the timer
     * that ends the loop once the reply is out, and the configurations
     * replaced (kept to the end: the auth context borrows from them) */
    struct conf *next_conf;
    struct event *reconf_ev;
    struct conf **old_confs;
    size_t n_old_confs;
};

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct run *r = arg;

    (void)what;
    log_info("signal=%d shutting down", (int)sig);
    sdnotify_send("STOPPING=1");
    conf_destroy(r->next_conf); /* a reconfigure waiting: not now */
    r->next_conf = NULL;
    event_base_loopbreak(r->base);
}

/* SIGHUP: reopen the log file (after logrotate moved it). */
static void on_hup(evutil_socket_t sig, short what, void *arg)
{
    struct run *r = arg;
    FILE *fp;

    (void)sig;
    (void)what;
    if (r->log_path == NULL)
        return;
    fp = log_open_private(r->log_path, NULL);
    if (fp == NULL) {
        log_warn("SIGHUP: cannot reopen %s", r->log_path);
        return;
    }
    setvbuf(fp, NULL, _IOLBF, 0);
    log_init("sluicectld", log_get_level(), fp);
    fclose(r->log_fp);
    r->log_fp = fp;
    log_info("SIGHUP: log reopened (the configuration is read at start)");
}

/*
 * SlurmUser: the configuration says which user the controller runs as;
 * node daemons and the CLI trust that user as they trust root, so running
 * as anyone else would leave the nodes refusing every request.
 */
static int check_user(const struct conf *conf, struct err *e)
{
    uid_t want;
    char me[64];

    if (conf_slurm_user_uid(conf, &want, e) < 0)
        return -1;
    if (want == (uid_t)-1 || want == geteuid())
        return 0;
    errno = EPERM;
    return err_set(e,
                   "SlurmUser=%s, but sluicectld runs as %s (uid %u): start "
                   "it as %s (in a systemd unit: User=%s), or remove "
                   "SlurmUser",
                   conf->slurm_user, auth_uid_name(geteuid(), me, sizeof(me)),
                   (unsigned)geteuid(), conf->slurm_user, conf->slurm_user);
}

static int prepare(struct run *r, struct err *e)
{
    const struct conf *conf = r->conf;
    const struct conf_ctld_host *h =
        conf->n_ctld_hosts ? &conf->ctld_hosts[0] : NULL;
    char *floor_path;
    int rc;

    if (h == NULL)
        return err_set(e, "%s: SlurmctldHost is not set", conf->path);
    if (check_user(conf, e) < 0)
        return -1;
    r->auth = auth_create_conf(conf, e);
    if (r->auth == NULL || make_dirs(conf->state_save_location, e) < 0)
        return -1;
    /* frames for the controller; nothing signed before this start */
    auth_set_tags(r->auth, AUTH_TAG_CTLD, AUTH_TAG_CLIENT);
    floor_path = xasprintf("%s/auth_floor", conf->state_save_location);
    rc = auth_floor_persist(r->auth, floor_path, e);
    free(floor_path);
    if (rc < 0)
        return -1;
    r->pid_path = xasprintf("%s/sluicectld.pid", conf->state_save_location);
    r->sock_path = xasprintf("%s/sluicectld.sock", conf->state_save_location);
    if ((r->pid_fd = daemon_pidfile_lock(r->pid_path, "sluicectld", e)) < 0)
        return -1;
    r->tcp_fd = listen_bind_tcp(h->addr[0] ? h->addr : h->host,
                                conf->slurmctld_port, e);
    if (r->tcp_fd < 0)
        return -1;
    r->unix_fd = listen_bind_unix(r->sock_path, e);
    if (r->unix_fd < 0)
        return -1;
    r->web_fd = web_bind(conf, e); /* -2: no SluiceRestAddr */
    return r->web_fd == -1 ? -1 : 0;
}

static int open_log(struct run *r, struct err *e)
{
    const char *path = r->o->log_path;
    enum log_level lvl =
        daemon_log_level(r->conf->slurmctld_debug, r->o->verbose);

    if (path == NULL && !r->o->foreground)
        r->log_path =
            xasprintf("%s/sluicectld.log", r->conf->state_save_location);
    else if (path != NULL)
        r->log_path = xstrdup(path);
    if (r->log_path != NULL) {
        r->log_fp = log_open_private(r->log_path, e);
        if (r->log_fp == NULL)
            return err_prefix(e, "log file");
        setvbuf(r->log_fp, NULL, _IOLBF, 0);
    }
    log_init("sluicectld", lvl, r->log_fp);
    if (r->log_fp == NULL)
        log_detect_journal();
    return 0;
}

/* Every client connection is a descriptor: the soft limit goes up to the
 * hard one (the connection cap is fitted below it, listen.c). */
static void raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
        log_warn("cannot raise RLIMIT_NOFILE to %llu",
                 (unsigned long long)rl.rlim_max);
}

static void reconf_due(evutil_socket_t fd, short what, void *arg)
{
    struct run *r = arg;

    (void)fd;
    (void)what;
    event_base_loopbreak(r->base);
}

/* rpc_env.reconfigure: rebuild on next once the replies are out (a
 * moment later: they are held until this iteration's commit). */
static void on_reconfigure(void *arg, struct conf *next)
{
    struct run *r = arg;
    struct timeval tv = {0, 300000};

    conf_destroy(r->next_conf);
    r->next_conf = next;
    evtimer_add(r->reconf_ev, &tv);
}

/* The controller on r->conf, listening on copies of the sockets (each
 * controller closes its own). */
static struct ctld *build(struct run *r, struct event_base *base, struct err *e)
{
    struct ctld *c = ctld_create(r->conf, r->auth, base, e);
    int tfd = -1, ufd = -1, wfd = -1;

    if (c == NULL)
        return NULL;
    c->conf_path = r->o->conf_path;
    c->reconfigure = on_reconfigure;
    c->reconf_arg = r;
    if ((r->tcp_fd >= 0 && (tfd = fcntl(r->tcp_fd, F_DUPFD_CLOEXEC, 0)) < 0) ||
        (r->unix_fd >= 0 &&
         (ufd = fcntl(r->unix_fd, F_DUPFD_CLOEXEC, 0)) < 0) ||
        (r->web_fd >= 0 && (wfd = fcntl(r->web_fd, F_DUPFD_CLOEXEC, 0)) < 0)) {
        err_set(e, "cannot duplicate the listening sockets: %s",
                strerror(errno));
        goto error;
    }
    if (ctld_listen(c, tfd, ufd, wfd, e) < 0) {
        wfd = -1; /* the HTTP socket is closed by a failed ctld_listen */
        goto error;
    }
    return c;
error:
    if (tfd >= 0)
        close(tfd);
    if (ufd >= 0)
        close(ufd);
    if (wfd >= 0)
        close(wfd);
    ctld_destroy(c);
    return NULL;
}

/* scontrol reconfigure: the controller torn down (its state committed)
 * and built again on the new configuration from the database, as at a
 * start, in this process and on the same sockets; the old one again if
 * the new one cannot be built. */
static struct ctld *rebuild(struct run *r, struct ctld *c,
                            struct event_base *base)
{
    struct conf *old = r->conf;
    struct err e;

    sdnotify_send("RELOADING=1");
    ctld_destroy(c);
    r->conf = r->next_conf;
    r->next_conf = NULL;
    c = build(r, base, &e);
    if (c != NULL) {
        log_info("reconfigured nodes=%zu partitions=%zu", r->conf->n_nodes,
                 r->conf->n_parts);
        if (r->conf->sluice_daemon_nice != old->sluice_daemon_nice)
            daemon_cpu_priority_log(r->conf->sluice_daemon_nice, false);
        log_set_level(
            daemon_log_level(r->conf->slurmctld_debug, r->o->verbose));
        r->old_confs = xrealloc(r->old_confs,
                                (r->n_old_confs + 1) * sizeof(*r->old_confs));
        r->old_confs[r->n_old_confs++] = old;
        sdnotify_send("READY=1");
        return c;
    }
    log_warnx("reconfigure failed, the previous configuration stays: %s",
              e.text);
    conf_destroy(r->conf);
    r->conf = old;
    c = build(r, base, &e);
    if (c != NULL)
        sdnotify_send("READY=1");
    return c;
}

/* Build the controller and run the loop; returns the exit status. */
static int serve(struct run *r, struct err *e)
{
    struct event_base *base = event_base_new();
    struct event *sigs[3];
    struct ctld *c = NULL;
    int status = 1;

    raise_nofile();
    if (base == NULL || event_base_priority_init(base, LOOP_NPRIO) < 0) {
        err_set(e, "cannot create the event loop");
        goto out;
    }
    r->base = base;
    r->reconf_ev = evtimer_new(base, reconf_due, r);
    if ((c = build(r, base, e)) == NULL)
        goto out;
    sigs[0] = evsignal_new(base, SIGTERM, on_signal, r);
    sigs[1] = evsignal_new(base, SIGINT, on_signal, r);
    sigs[2] = evsignal_new(base, SIGHUP, on_hup, r);
    for (int i = 0; i < 3; i++)
        event_add(sigs[i], NULL);
    if (daemon_pidfile_write(r->pid_fd, e) < 0)
        log_warnx("%s", e->text);
    daemon_cpu_priority_log(r->conf->sluice_daemon_nice, true);
    log_info("started pid=%ld cluster=%s port=%u nodes=%zu partitions=%zu "
             "auth=%s",
             (long)getpid(), r->conf->cluster_name, r->conf->slurmctld_port,
             r->conf->n_nodes, r->conf->n_parts,
             auth_type_name(auth_get_type(r->auth)));
    report_ready(&r->ready_fd, NULL);
    if (sdnotify_send("READY=1") < 0)
        log_warn("cannot tell systemd that start-up is done");
    if (!r->o->foreground && daemon_null_stdio(e) < 0)
        log_warnx("%s", e->text);
    event_base_dispatch(base);
    while (r->next_conf != NULL) {
        if ((c = rebuild(r, c, base)) == NULL) {
            log_warnx("cannot rebuild the controller; stopping");
            break;
        }
        event_base_dispatch(base);
    }
    ctld_destroy(c);
    c = NULL;
    for (int i = 0; i < 3; i++)
        event_free(sigs[i]);
    unlink(r->sock_path);
    unlink(r->pid_path);
    log_info("stopped");
    status = 0;
out:
    ctld_destroy(c);
    if (r->reconf_ev != NULL)
        event_free(r->reconf_ev);
    if (base)
        event_base_free(base);
    return status;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct run r = {.o = &o,
                    .pid_fd = -1,
                    .tcp_fd = -1,
                    .unix_fd = -1,
                    .web_fd = -1,
                    .ready_fd = -1};
    struct conf_diag diag;
    struct err e;
    int status = 1;

    signal(SIGPIPE, SIG_IGN);
    /* the database holds every job's script and environment: nothing
     * this daemon creates is for other users unless chmod'ed so */
    umask(077);
    if (parse_args(argc, argv, &o) < 0)
        return 2;
    log_init("sluicectld", o.verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO, NULL);
    if (sdnotify_init(&e) < 0)
        fprintf(stderr, "sluicectld: warning: %s\n", e.text);
    conf_diag_init(&diag);
    err_clear(&e);
    r.conf = conf_load(o.conf_path, &diag, &e);
    conf_diag_print(&diag, stderr);
    conf_diag_free(&diag);
    if (r.conf == NULL)
        return 1;
    if (prepare(&r, &e) < 0 ||
        (!o.foreground && daemonize(&r.ready_fd, &e) < 0) ||
        open_log(&r, &e) < 0) {
        if (r.ready_fd >= 0)
            report_ready(&r.ready_fd, e.text);
        else
            fprintf(stderr, "sluicectld: %s\n", e.text);
        goto out;
    }
    status = serve(&r, &e);
    if (status != 0) {
        log_warnx("%s", e.text);
        if (r.ready_fd >= 0)
            report_ready(&r.ready_fd, e.text);
        else if (r.log_fp != NULL)
            fprintf(stderr, "sluicectld: %s\n", e.text);
    }
out:
    if (r.tcp_fd >= 0)
        close(r.tcp_fd);
    if (r.unix_fd >= 0)
        close(r.unix_fd);
    if (r.web_fd >= 0)
        close(r.web_fd);
    if (r.pid_fd >= 0)
        close(r.pid_fd);
    auth_destroy(r.auth);
    conf_destroy(r.conf);
    conf_destroy(r.next_conf);
    free(o.abs_conf);
    for (size_t i = 0; i < r.n_old_confs; i++)
        conf_destroy(r.old_confs[i]);
    free(r.old_confs);
    free(r.pid_path);
    free(r.sock_path);
    free(r.log_path);
    if (r.log_fp)
        fclose(r.log_fp);
    return status;
}
