/*
 * sluice up [-f CONFIG] [--dir DIR]: a whole cluster on this machine.  The
 * configuration is rewritten for loopback (controller on a free port,
 * state and spools in DIR, an auth/key key, nodes reporting their
 * configured size, NodeHostname this host's name, count-only GPUs where
 * the machine has none); then the
 * controller and one node daemon per NodeName are started, or restarted
 * where they are missing, and up waits until every node has registered.
 * --no-gpus=NODES declares no GPUs for those nodes, so that they show the
 * seed's pitfall (Gres=gpu:N configured, none found: INVALID).
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/local.h"
#include "cli/opt.h"
#include "common/auth.h"
#include "common/conf.h"
#include "common/fsmode.h"
#include "common/hostlist.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define UP_TIMEOUT_S 30

/* The commands that run the daemons, found next to this binary. */
struct up_bins {
    char *ctld, *noded;
};

/* What gres.conf is written from. */
struct up_gres {
    const struct conf *c;
    const struct hostlist *no_gpus; /* nodes declared without GPUs, or NULL */
};

/* One free TCP port on 127.0.0.1, kept bound (fd) until all are chosen,
 * so that several calls never return the same port. */
static int up_port(int *fd, struct err *e)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);

    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        bind(*fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
        getsockname(*fd, (struct sockaddr *)&sin, &len) < 0)
        return err_set(e, "cannot find a free port on 127.0.0.1: %s",
                       strerror(errno));
    return ntohs(sin.sin_port);
}

static void up_replace(char **dst, char *s)
{
    free(*dst);
    *dst = s;
}

/* Point c at this machine and at d; -1 with e when no port is free.  The
 * REST API and the dashboard get a port of their own, with auth/jwt. */
static int up_localize(struct conf *c, const struct local_dir *d, struct err *e)
{
    int *fds = xcalloc(c->n_nodes + 2, sizeof(*fds)), port, rc = 0;
    char host[256] = "";

    for (size_t i = 0; i < c->n_ctld_hosts; i++) {
        free(c->ctld_hosts[i].host);
        free(c->ctld_hosts[i].addr);
    }
    c->n_ctld_hosts = 1;
    c->ctld_hosts = xreallocarray(c->ctld_hosts, 1, sizeof(*c->ctld_hosts));
    c->ctld_hosts[0].host = xstrdup("localhost");
    c->ctld_hosts[0].addr = xstrdup("127.0.0.1");
    for (size_t i = 0; i <= c->n_nodes + 1; i++)
        fds[i] = -1;
    for (size_t i = 0; i <= c->n_nodes + 1 && rc == 0; i++) {
        if ((port = up_port(&fds[i], e)) < 0)
            rc = -1;
        else if (i == 0)
            c->slurmctld_port = (uint16_t)port;
        else if (i <= c->n_nodes)
            c->nodes[i - 1].port = (uint16_t)port;
        else
            up_replace(&c->sluice_rest_addr, xasprintf("127.0.0.1:%d", port));
    }
    for (size_t i = 0; i <= c->n_nodes + 1; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    up_replace(&c->state_save_location, xstrdup(d->state));
    up_replace(&c->slurm_user, xstrdup("")); /* the caller's cluster */
    up_replace(&c->slurmd_spool_dir, xasprintf("%s/%%n", d->spool));
    c->auth_type = CONF_AUTH_KEY;
    up_replace(&c->auth_info, xstrdup(d->key));
    up_replace(&c->auth_alt_types, xstrdup("auth/jwt"));
    up_replace(&c->auth_alt_parameters, xasprintf("jwt_key=%s", d->jwt));
    if (!c->slurmd_config_overrides)
        up_replace(
            &c->slurmd_parameters,
            c->slurmd_parameters[0] == '\0'
                ? xstrdup("config_overrides")
                : xasprintf("%s,config_overrides", c->slurmd_parameters));
    c->slurmd_config_overrides = true;
    /* every node daemon runs on this host, and says so when it
     * registers: NodeHostname is this host's name (sluice doctor) */
    if (gethostname(host, sizeof(host) - 1) < 0 || host[0] == '\0')
        snprintf(host, sizeof(host), "localhost");
    for (size_t i = 0; i < c->n_nodes; i++) {
        up_replace(&c->nodes[i].addr, xstrdup("127.0.0.1"));
        up_replace(&c->nodes[i].hostname, xstrdup(host));
    }
    return rc;
}

/* How many /dev/nvidiaN devices this machine has. */
static uint64_t up_gpus_here(void)
{
    DIR *dir = opendir("/dev");
    struct dirent *de;
    uint64_t n = 0;

    if (dir == NULL)
        return 0;
    while ((de = readdir(dir)) != NULL)
        if (strncmp(de->d_name, "nvidia", 6) == 0 && de->d_name[6] >= '0' &&
            de->d_name[6] <= '9' &&
            strspn(de->d_name + 6, "0123456789") == strlen(de->d_name + 6))
            n++;
    closedir(dir);
    return n;
}

/* One node's lines of gres.conf. */
static void up_gres_node(FILE *fp, const struct conf_node *n, uint64_t here,
                         bool none)
{
    uint64_t next = 0;
    bool declared = false;

    if (none && gres_count(n->gres, "gpu", NULL) > 0) {
        fprintf(fp, "# %s: no GPUs declared (sluice up --no-gpus)\n", n->name);
        fprintf(stderr,
                "up: %s: declaring no GPUs (--no-gpus): it registers "
                "INVALID\n",
                n->name);
    }
    for (size_t k = 0; k < n->gres->n; k++) {
        const struct gres_item *it = &n->gres->items[k];
        if (none && strcmp(it->name, "gpu") == 0)
            continue;
        fprintf(fp, "NodeName=%s Name=%s", n->name, it->name);
        if (it->type[0] != '\0')
            fprintf(fp, " Type=%s", it->type);
        if (strcmp(it->name, "gpu") == 0 && next + it->count <= here) {
            fprintf(fp, " File=/dev/nvidia[%llu-%llu]\n",
                    (unsigned long long)next,
                    (unsigned long long)(next + it->count - 1));
            next += it->count;
            continue;
        }
        fprintf(fp, " Count=%llu\n", (unsigned long long)it->count);
        if (strcmp(it->name, "gpu") == 0)
            declared = true;
    }
    if (declared)
        fprintf(stderr,
                "up: %s: no GPUs here; declaring gpu:%llu "
                "count-only\n",
                n->name, (unsigned long long)gres_count(n->gres, "gpu", NULL));
    else if (next > 0)
        fprintf(stderr,
                "up: %s: gpu:%llu on this machine's /dev/nvidia[0-%llu] "
                "(every local node shares them)\n",
                n->name, (unsigned long long)next,
                (unsigned long long)(next - 1));
}

/* Write path through a temporary file: fn prints the contents. */
static int up_write(const char *path, void (*fn)(FILE *, const void *),
                    const void *arg, struct err *e)
{
    char *tmp = xasprintf("%s.tmp", path);
    /* 0644: other users read the configuration (SLUICE_CONF) */
    int fd = fsmode_create_excl(tmp, 0644);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
    int rc = 0;

    if (fd >= 0 && fp == NULL)
        close(fd);
    if (fp == NULL) {
        rc = err_set(e, "cannot write %s: %s", tmp, strerror(errno));
    } else {
        fn(fp, arg);
        if (ferror(fp) | (fclose(fp) != 0) || rename(tmp, path) < 0) {
            rc = err_set(e, "cannot write %s: %s", path, strerror(errno));
            unlink(tmp);
        }
    }
    free(tmp);
    return rc;
}

static void up_print_conf(FILE *fp, const void *arg)
{
    fputs("# Written by `sluice up` for a local cluster on this machine.\n",
          fp);
    conf_print(arg, fp);
}

static void up_print_gres(FILE *fp, const void *arg)
{
    const struct up_gres *g = arg;
    uint64_t here = up_gpus_here();

    fputs("# Written by `sluice up`: each node's GRES, count-only where this\n"
          "# machine has no GPUs to show.\n",
          fp);
    for (size_t i = 0; i < g->c->n_nodes; i++)
        up_gres_node(fp, &g->c->nodes[i], here,
                     g->no_gpus != NULL &&
                         hostlist_find(g->no_gpus, g->c->nodes[i].name) >= 0);
}

/* DIR/gres.conf for c; --no-gpus names must be nodes of c. */
static int up_write_gres(const struct local_dir *d, const struct conf *c,
                         const struct hostlist *no_gpus, struct err *e)
{
    struct up_gres g = {c, no_gpus};

    for (size_t i = 0; no_gpus != NULL && i < hostlist_count(no_gpus); i++)
        if (conf_node_find(c, hostlist_nth(no_gpus, i)) == NULL)
            return err_set(e, "--no-gpus: %s is not a NodeName of %s",
                           hostlist_nth(no_gpus, i), c->path);
    return up_write(d->gres, up_print_gres, &g, e);
}

/* DIR/sluice.conf and DIR/gres.conf from the configuration at src. */
static int up_make_conf(const struct local_dir *d, const char *src,
                        const struct hostlist *no_gpus, struct err *e)
{
    struct conf_diag diag;
    struct conf *c;
    int rc = -1;

    conf_diag_init(&diag);
    if ((c = conf_load(src, &diag, e)) == NULL) {
        if (errno != EINVAL)
            err_set(e, "cannot read %s: %s", src, strerror(errno));
        goto out;
    }
    if (diag.n_warnings > 0)
        fprintf(stderr,
                "up: %s has %zu warning%s (sluice check-config -f %s "
                "shows them)\n",
                src, diag.n_warnings, diag.n_warnings == 1 ? "" : "s", src);
    if (c->n_nodes == 0) {
        err_set(e, "%s defines no NodeName: nothing to start", src);
        goto out;
    }
    if (up_localize(c, d, e) < 0 || up_write_gres(d, c, no_gpus, e) < 0 ||
        up_write(d->conf, up_print_conf, c, e) < 0)
        goto out;
    fprintf(stderr, "up: wrote %s from %s\n", d->conf, src);
    rc = 0;
out:
    conf_destroy(c);
    conf_diag_free(&diag);
    return rc;
}

/* sluicectld and sluiced beside this binary. */
static int up_find_bins(struct up_bins *b, struct err *e)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *dir;

    if (n < 0)
        return err_set(e, "cannot find this program: /proc/self/exe: %s",
                       strerror(errno));
    self[n] = '\0';
    dir = dirname(self);
    b->ctld = xasprintf("%s/sluicectld", dir);
    b->noded = xasprintf("%s/sluiced", dir);
    if (access(b->ctld, X_OK) < 0)
        return err_set(e, "cannot run %s: %s (build it with make)", b->ctld,
                       strerror(errno));
    if (access(b->noded, X_OK) < 0)
        return err_set(e, "cannot run %s: %s (build it with make)", b->noded,
                       strerror(errno));
    return 0;
}

/* A daemon killed just before `sluice up` (kill -9) that has not exited
 * yet still holds its pid file's lock, and a second one would refuse to
 * start: wait until it is gone, or say why not. */
static int up_wait_exit(const struct local_dir *d, const char *name,
                        struct err *e)
{
    pid_t pid;
    char st;

    if ((pid = local_exiting(d, name, &st)) == 0)
        return 0;
    fprintf(stderr,
            "up: %s (pid %ld) was killed and has not exited yet; "
            "waiting for it\n",
            name, (long)pid);
    for (int i = 0; i < UP_TIMEOUT_S * 20; i++) {
        usleep(50000);
        if ((pid = local_exiting(d, name, &st)) == 0)
            return 0;
    }
    return err_set(e,
                   "%s (pid %ld) was killed and has not exited in %d s "
                   "(state %c in /proc/%ld/stat; a frozen cgroup v1 freezer "
                   "keeps a killed process until it is thawed)",
                   name, (long)pid, UP_TIMEOUT_S, st, (long)pid);
}

/* Start one daemon unless it runs: 1 when one was running, 0 when it was
 * started, -1 with e.  One that was running may be on its way out (a kill
 * -9 just before `sluice up`): the waits below start it again if so. */
static int up_start(const struct local_dir *d, const char *name,
                    char *const argv[], struct err *e)
{
    pid_t pid;

    if (up_wait_exit(d, name, e) < 0)
        return -1;
    if ((pid = local_running(d, name)) > 0) {
        fprintf(stderr, "up: %s is running (pid %ld)\n", name, (long)pid);
        return 1;
    }
    if ((pid = local_spawn(d, name, argv, e)) < 0)
        return -1;
    fprintf(stderr, "up: started %s (pid %ld)\n", name, (long)pid);
    return 0;
}

static int up_start_ctld(const struct local_dir *d, const struct up_bins *b,
                         const char *log, struct err *e)
{
    return up_start(
        d, LOCAL_CTLD_NAME,
        (char *const[]){b->ctld, "-f", d->conf, "-D", "-L", (char *)log, NULL},
        e);
}

static int up_start_node(const struct local_dir *d, const struct up_bins *b,
                         const char *name, struct err *e)
{
    char *log = local_log_file(d, name);
    int rc = up_start(d, name,
                      (char *const[]){b->noded, "-N", (char *)name, "-f",
                                      d->conf, "-D", "-L", log, NULL},
                      e);

    free(log);
    return rc;
}

/* Report a daemon that died while starting, with the end of its logs. */
static int up_died(const struct local_dir *d, const char *name, struct err *e)
{
    char *log = local_log_file(d, name);
    char *out = xasprintf("%s/%s.out", d->log, name);

    fprintf(stderr, "up: %s exited while starting; the end of %s:\n", name,
            log);
    local_tail(log, 8);
    fprintf(stderr, "up: and of %s:\n", out);
    local_tail(out, 8);
    err_set(e, "%s did not start (see %s)", name, log);
    free(log);
    free(out);
    return -1;
}

static double up_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait until the controller answers PING; *cl is then connected.  1 when
 * the one found running (was_running) has exited meanwhile. */
static int up_wait_ctld(const struct local_dir *d, double deadline,
                        bool was_running, struct cli_client **cl, struct err *e)
{
    json_t *reply = NULL;

    while (up_now() < deadline) {
        if (local_gone(d, LOCAL_CTLD_NAME))
            return was_running ? 1 : up_died(d, LOCAL_CTLD_NAME, e);
        if ((*cl = cli_client_open(d->conf, 1000, e)) != NULL &&
            cli_client_call(*cl, PROTO_MSG_PING, NULL, &reply, NULL, e) == 0) {
            json_decref(reply);
            return 0;
        }
        cli_client_close(*cl);
        *cl = NULL;
        usleep(100000);
    }
    char *log = local_log_file(d, LOCAL_CTLD_NAME);
    err_set(e, "sluicectld did not answer within %d s: %s (see %s)",
            UP_TIMEOUT_S, e->text, log);
    free(log);
    return -1;
}

/* The NODE object of name in nodes, or NULL. */
static json_t *up_node(json_t *nodes, const char *name)
{
    size_t i;
    json_t *n;

    json_array_foreach(nodes, i, n)
    {
        const char *s = json_string_value(json_object_get(n, "name"));
        if (s != NULL && strcmp(s, name) == 0)
            return n;
    }
    return NULL;
}

/* What up_wait_nodes needs besides the directory and the configuration. */
struct up_nodes {
    const struct up_bins *b;
    const struct hostlist *no_gpus;
    bool *was_running; /* per node of c: found running, not started by up */
};

/* Nodes not registered yet, as "node03 (DOWN: Not responding)" text into
 * buf; returns how many.  -1 with e when a node was refused (INVALID),
 * unless --no-gpus asked for that.  A node daemon found running that has
 * exited since is started again. */
static int up_missing(const struct local_dir *d, const struct conf *c,
                      const struct up_nodes *un, json_t *nodes, char *buf,
                      size_t len, struct err *e)
{
    const struct hostlist *no_gpus = un->no_gpus;
    size_t used = 0;
    int missing = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < c->n_nodes; i++) {
        json_t *n = up_node(nodes, c->nodes[i].name);
        const char *st = json_string_value(json_object_get(n, "state"));
        const char *why = json_string_value(json_object_get(n, "reason"));
        /* a node whose daemon is gone keeps its state for a while: only a
         * connected one has registered (absent: an older controller) */
        bool connected = !json_is_false(json_object_get(n, "connected"));
        bool invalid = st != NULL && strcmp(st, "INVALID") == 0;
        if (local_gone(d, c->nodes[i].name)) {
            if (!un->was_running[i])
                return up_died(d, c->nodes[i].name, e);
            fprintf(stderr, "up: %s has exited since; starting it\n",
                    c->nodes[i].name);
            int r = up_start_node(d, un->b, c->nodes[i].name, e);
            if (r < 0)
                return -1;
            un->was_running[i] = r == 1;
            st = "starting";
            why = NULL;
            connected = false;
            invalid = false;
        }
        if (invalid && connected && no_gpus != NULL &&
            hostlist_find(no_gpus, c->nodes[i].name) >= 0)
            continue;
        if (invalid && connected)
            return err_set(e,
                           "%s was refused by sluicectld: %s (see %s/%s.log)",
                           c->nodes[i].name, why ? why : "no reason given",
                           d->log, c->nodes[i].name);
        if (st != NULL && connected && strcmp(st, "DOWN") != 0 &&
            strcmp(st, "UNKNOWN") != 0)
            continue;
        missing++;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s%s (%s%s%s)", used ? ", " : "",
                                 c->nodes[i].name, st ? st : "not known",
                                 why && why[0] ? ": " : "", why ? why : "");
    }
    return missing;
}

/* Wait until every node of c has registered. */
static int up_wait_nodes(const struct local_dir *d, const struct conf *c,
                         const struct up_nodes *un, struct cli_client *cl,
                         double deadline, struct err *e)
{
    char text[2048];
    int missing = -1;

    while (up_now() < deadline) {
        json_t *reply = NULL;
        if (cli_client_call(cl, PROTO_MSG_NODE_QUERY, NULL, &reply, NULL, e) <
            0)
            return err_prefix(e, "asking sluicectld for its nodes");
        missing = up_missing(d, c, un, json_object_get(reply, "nodes"), text,
                             sizeof(text), e);
        json_decref(reply);
        if (missing <= 0)
            return missing;
        usleep(100000);
    }
    return err_set(e,
                   "%d node%s did not register within %d s: %s; see their "
                   "logs in %s",
                   missing, missing == 1 ? "" : "s", UP_TIMEOUT_S, text,
                   d->log);
}

/* Start what is missing and wait for all of it. */
static int up_run(const struct local_dir *d, const struct up_bins *b,
                  const struct hostlist *no_gpus, struct err *e)
{
    double t0 = up_now(), deadline = t0 + UP_TIMEOUT_S;
    struct cli_client *cl = NULL;
    struct conf *c = conf_load(d->conf, NULL, e);
    char *log = local_log_file(d, LOCAL_CTLD_NAME);
    struct up_nodes un = {.b = b, .no_gpus = no_gpus};
    int rc = -1, r;

    if (c == NULL || (r = up_start_ctld(d, b, log, e)) < 0)
        goto out;
    if ((r = up_wait_ctld(d, deadline, r == 1, &cl, e)) == 1) {
        fprintf(stderr, "up: %s has exited since; starting it\n",
                LOCAL_CTLD_NAME);
        if ((r = up_start_ctld(d, b, log, e)) < 0 ||
            up_wait_ctld(d, deadline, false, &cl, e) < 0)
            goto out;
    } else if (r < 0) {
        goto out;
    }
    un.was_running = xcalloc(c->n_nodes ? c->n_nodes : 1, sizeof(bool));
    for (size_t i = 0; i < c->n_nodes; i++) {
        if ((r = up_start_node(d, b, c->nodes[i].name, e)) < 0)
            goto out;
        un.was_running[i] = r == 1;
    }
    if (up_wait_nodes(d, c, &un, cl, deadline, e) < 0)
        goto out;
    fprintf(stderr,
            "up: sluicectld on 127.0.0.1:%u and %zu node%s up "
            "(%.1f s); logs in %s\n",
            (unsigned)c->slurmctld_port, c->n_nodes, c->n_nodes == 1 ? "" : "s",
            up_now() - t0, d->log);
    if (c->sluice_rest_addr[0] != '\0')
        fprintf(stderr,
                "up: REST API, /metrics and the dashboard on http%s://%s/ "
                "(a token: scontrol token)\n",
                c->sluice_rest_tls_cert[0] ? "s" : "", c->sluice_rest_addr);
    rc = 0;
out:
    free(un.was_running);
    cli_client_close(cl);
    conf_destroy(c);
    free(log);
    return rc;
}

enum { UP_FILE = 1, UP_DIR, UP_HELP, UP_NO_GPUS };

static const struct opt_def up_opts[] = {
    {"file", 'f', OPT_ARG, UP_FILE},
    {"dir", 'd', OPT_ARG, UP_DIR},
    {"no-gpus", 0, OPT_ARG, UP_NO_GPUS},
    {"help", 'h', OPT_NOARG, UP_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

/* DIR/gres.conf again, from DIR/sluice.conf, for --no-gpus. */
static int up_redo_gres(const struct local_dir *d,
                        const struct hostlist *no_gpus, struct err *e)
{
    struct conf *c = conf_load(d->conf, NULL, e);
    int rc;

    if (c == NULL)
        return -1;
    rc = up_write_gres(d, c, no_gpus, e);
    conf_destroy(c);
    return rc;
}

/* Prepare DIR: its configuration (written once, then reused; gres.conf
 * rewritten for --no-gpus) and key. */
static int up_prepare(const struct local_dir *d, const char *src,
                      const struct hostlist *no_gpus, struct err *e)
{
    struct stat st;

    if (stat(d->conf, &st) == 0) {
        fprintf(stderr, "up: reusing %s%s\n", d->conf,
                src ? " (-f is ignored; remove the directory to start over)"
                    : "");
        if (no_gpus != NULL && up_redo_gres(d, no_gpus, e) < 0)
            return -1;
    } else if (up_make_conf(d, src ? src : cli_conf_path(), no_gpus, e) < 0) {
        return -1;
    }
    if (stat(d->key, &st) < 0) {
        if (auth_keygen(d->key, e) < 0)
            return -1;
        fprintf(stderr, "up: generated the auth/key key %s\n", d->key);
    }
    if (stat(d->jwt, &st) < 0) {
        if (auth_keygen(d->jwt, e) < 0)
            return -1;
        fprintf(stderr, "up: generated the auth/jwt key %s\n", d->jwt);
    }
    return 0;
}

int cmd_up(int argc, char **argv)
{
    const char *src = NULL, *dir = LOCAL_DIR_DEFAULT, *arg;
    struct hostlist *no_gpus = NULL;
    struct up_bins b = {0};
    struct local_dir d;
    struct opt_state st;
    struct err e = {""};
    int id, rc;

    cli_set_prog("sluice");
    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, up_opts, &id, &arg, &e)) > 0) {
        if (id == UP_HELP) {
            printf("usage: sluice up [-f CONFIG] [--dir DIR] "
                   "[--no-gpus=NODES]\n"
                   "  Start a controller and one node daemon per NodeName "
                   "of CONFIG\n  on this machine (DIR defaults to %s); "
                   "prints the export line.\n"
                   "  --no-gpus: declare no GPUs for NODES (they register "
                   "INVALID).\n",
                   LOCAL_DIR_DEFAULT);
            hostlist_destroy(no_gpus);
            return 0;
        }
        if (id == UP_FILE) {
            src = arg;
        } else if (id == UP_DIR) {
            dir = arg;
        } else {
            hostlist_destroy(no_gpus);
            if ((no_gpus = hostlist_expand(arg, &e)) == NULL) {
                err_prefix(&e, "--no-gpus=%s", arg);
                rc = -1;
                break;
            }
        }
    }
    if (cli_opt_end(&st, rc, &e) < 0) {
        hostlist_destroy(no_gpus);
        return 2;
    }
    rc = 1;
    if (local_dir_init(&d, dir, true, &e) < 0 ||
        up_prepare(&d, src, no_gpus, &e) < 0 || up_find_bins(&b, &e) < 0 ||
        up_run(&d, &b, no_gpus, &e) < 0) {
        cli_error("up: %s", e.text);
    } else {
        printf("export SLUICE_CONF=%s\n", d.conf);
        rc = 0;
    }
    free(b.ctld);
    free(b.noded);
    hostlist_destroy(no_gpus);
    local_dir_clear(&d);
    return rc;
}
