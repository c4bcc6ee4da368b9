/*
 * The CLI's connection to sluicectld, found as docs/protocol.md says: the
 * unix socket StateSaveLocation/sluicectld.sock when it is there (the peer
 * is known by SO_PEERCRED), else TCP with a credential.  And the CLI's
 * error lines, in the face of the command the user typed.  Replies are
 * escaped here, once for every verb (utf8_escape: control characters in
 * job names and other user strings never reach the terminal), unless a
 * verb prints them as JSON (cli_set_raw).
 */
#include "cli/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "cli/cli.h"
#include "common/auth.h"
#include "common/proto.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#define CLIENT_SOCK_NAME "sluicectld.sock"

struct cli_client {
    struct conf *conf;
    struct proto_conn *conn;
    struct auth *auth; /* NULL on the unix socket */
    int timeout_ms;
};

/* The face of this process: set once per command by cli_set_prog. */
static char cli_prog_name[32] = "sluice";
static bool cli_is_slurm;
/* The connection cli_call opens on first use. */
static struct cli_client *cli_default;
/* cli_call's replies are left unescaped (--json). */
static bool cli_raw;

/* The face is a Slurm name's when argv0 is one of cli_slurm_cmds (the
 * same table main() dispatches on, so no name can be missing here). */
void cli_set_prog(const char *argv0)
{
    const char *base = strrchr(argv0, '/');

    base = base ? base + 1 : argv0;
    cli_is_slurm = cli_find(cli_slurm_cmds, base) != NULL;
    snprintf(cli_prog_name, sizeof(cli_prog_name), "%s",
             cli_is_slurm ? base : "sluice");
}

const char *cli_prog(void)
{
    return cli_prog_name;
}

bool cli_slurm_face(void)
{
    return cli_is_slurm;
}

/* One line on stderr: "PROG: " and tag, then fmt escaped (an error may
 * quote a job name or a path). */
static void __attribute__((format(printf, 2, 0)))
cli_vline(const char *tag, const char *fmt, va_list ap)
{
    char text[2 * ERR_TEXT_MAX], esc[4 * ERR_TEXT_MAX];

    vsnprintf(text, sizeof(text), fmt, ap);
    fflush(stdout);
    fprintf(stderr, "%s: %s", cli_prog_name, tag);
    fputs(utf8_escape_buf(text, esc, sizeof(esc)), stderr);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cli_vline(cli_is_slurm ? "error: " : "", fmt, ap);
    va_end(ap);
}

int cli_opt_end(struct opt_state *st, int rc, struct err *e)
{
    if (rc == 0 && st->ind < st->argc && !st->permute) {
        errno = EINVAL;
        rc = err_set(e, "unexpected argument \"%s\"", st->argv[st->ind]);
    }
    opt_free(st);
    if (rc < 0) {
        cli_error("%s", e->text);
        return -1;
    }
    return 1;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cli_vline("warning: ", fmt, ap);
    va_end(ap);
}

void cli_set_raw(bool raw)
{
    cli_raw = raw;
}

void cli_escape_json(json_t *v)
{
    const char *key;
    json_t *x, *tmp;
    size_t i;

    if (json_is_string(v) && utf8_needs_escape(json_string_value(v))) {
        char *s = utf8_escape(json_string_value(v));
        json_string_set(v, s);
        free(s);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) cli_escape_json(x);
    } else if (json_is_object(v)) {
        json_object_foreach_safe(v, tmp, key, x)
        {
            cli_escape_json(x);
            if (utf8_needs_escape(key)) {
                char *k = utf8_escape(key);
                json_object_set(v, k, x);
                json_object_del(v, key);
                free(k);
            }
        }
    }
}

const char *cli_conf_path(void)
{
    const char *p = getenv("SLUICE_CONF");

    return p != NULL && p[0] != '\0' ? p : CONF_DEFAULT_PATH;
}

/* "host:port" of the primary SlurmctldHost; caller frees. */
static char *client_tcp_addr(const struct conf *c)
{
    const char *h = "localhost";

    if (c->n_ctld_hosts > 0)
        h = c->ctld_hosts[0].addr[0] != '\0' ? c->ctld_hosts[0].addr
                                             : c->ctld_hosts[0].host;
    if (strchr(h, ':') != NULL)
        return xasprintf("[%s]:%u", h, (unsigned)c->slurmctld_port);
    return xasprintf("%s:%u", h, (unsigned)c->slurmctld_port);
}

/*
 * Whether the controller behind the unix socket may hear our requests
 * (scripts, environment): the process that listens (SO_PEERCRED, which no
 * file swap can fake) runs as root, as the caller, or as the owner of the
 * configuration file, who decides where we connect anyway.  Anyone else
 * got their socket into StateSaveLocation (a directory they own, say).
 */
static int client_peer_trusted(struct cli_client *cl, const char *path,
                               struct err *e)
{
    struct ucred uc;
    socklen_t len = sizeof(uc);
    struct stat st;

    if (getsockopt(proto_conn_fd(cl->conn), SOL_SOCKET, SO_PEERCRED, &uc,
                   &len) < 0)
        return err_set(e, "%s: cannot tell who listens: %s", path,
                       strerror(errno));
    if (uc.uid == 0 || uc.uid == geteuid() ||
        (stat(cl->conf->path, &st) == 0 && st.st_uid == uc.uid))
        return 0;
    errno = EPERM;
    return err_set(e,
                   "refusing %s: the process listening there runs as uid "
                   "%u, which is not root, you, or the owner of %s",
                   path, (unsigned)uc.uid, cl->conf->path);
}

/* Try the unix socket: 1 connected, 0 not there (or stale), -1 failed. */
static int client_try_unix(struct cli_client *cl, struct err *e)
{
    struct sockaddr_un sun;
    struct stat st;
    char *path, *addr;

    path = xasprintf("%s/" CLIENT_SOCK_NAME, cl->conf->state_save_location);
    if (strlen(path) >= sizeof(sun.sun_path) || stat(path, &st) < 0 ||
        !S_ISSOCK(st.st_mode)) {
        free(path);
        return 0;
    }
    addr = xasprintf("unix:%s", path);
    cl->conn = proto_connect(addr, cl->timeout_ms, e);
    free(addr);
    if (cl->conn != NULL && client_peer_trusted(cl, path, e) < 0) {
        proto_close(cl->conn);
        cl->conn = NULL;
        free(path);
        return -1;
    }
    free(path);
    if (cl->conn != NULL)
        return 1;
    /* A socket file left by a controller that is gone: try TCP. */
    return errno == ECONNREFUSED || errno == ENOENT ? 0 : -1;
}

static int client_connect(struct cli_client *cl, struct err *e)
{
    char *addr;
    int rc;

    if ((rc = client_try_unix(cl, e)) != 0)
        return rc > 0 ? 0 : -1;
    addr = client_tcp_addr(cl->conf);
    cl->conn = proto_connect(addr, cl->timeout_ms, e);
    if (cl->conn == NULL) {
        free(addr);
        return -1;
    }
    cl->auth = auth_create_conf(cl->conf, e);
    if (cl->auth == NULL) {
        err_prefix(e, "cannot sign requests to sluicectld at %s", addr);
        free(addr);
        return -1;
    }
    free(addr);
    return 0;
}

struct cli_client *cli_client_open(const char *conf_path, int timeout_ms,
                                   struct err *e)
{
    struct cli_client *cl = xcalloc(1, sizeof(*cl));

    cl->conf = conf_load(conf_path, NULL, e);
    if (cl->conf == NULL) {
        if (errno != EINVAL)
            err_set(e, "cannot read configuration %s: %s%s", conf_path,
                    strerror(errno),
                    getenv("SLUICE_CONF") ? "" : " (set SLUICE_CONF)");
        goto error;
    }
    cl->timeout_ms = (int)(cl->conf->message_timeout_s > 0
                               ? cl->conf->message_timeout_s * 1000
                               : 10000);
    if (timeout_ms >= 0 && timeout_ms < cl->timeout_ms)
        cl->timeout_ms = timeout_ms;
    if (client_connect(cl, e) < 0)
        goto error;
    return cl;
error:
    cli_client_close(cl);
    return NULL;
}

const struct conf *cli_client_conf(const struct cli_client *c)
{
    return c->conf;
}

int cli_client_call(struct cli_client *c, uint16_t type, json_t *req,
                    json_t **reply, bool *transport, struct err *e)
{
    json_t *empty = NULL;
    int rc;

    if (transport != NULL)
        *transport = false;
    if (req == NULL)
        req = empty = json_object();
    /* A long reply (a big queue) may take longer than a connect. */
    rc = proto_call(c->conn, c->auth, type, req, reply,
                    c->timeout_ms < 60000 ? 60000 : c->timeout_ms, e);
    json_decref(empty);
    /* An error reply carries the controller's own message; every failure
     * of the connection itself names "sluicectld at ADDR". */
    if (rc < 0 && transport != NULL)
        *transport = strstr(e->text, "sluicectld at ") != NULL;
    return rc;
}

int cli_client_local_addr(const struct cli_client *c, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    const void *a;

    if (getsockname(proto_conn_fd(c->conn), (struct sockaddr *)&ss, &sl) < 0)
        return -1;
    if (ss.ss_family == AF_INET)
        a = &((struct sockaddr_in *)&ss)->sin_addr;
    else if (ss.ss_family == AF_INET6)
        a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    else {
        errno = EAFNOSUPPORT;
        return -1;
    }
    return inet_ntop(ss.ss_family, a, buf, (socklen_t)len) != NULL ? 0 : -1;
}

void cli_client_close(struct cli_client *c)
{
    int saved = errno;

    if (c == NULL)
        return;
    proto_close(c->conn);
    auth_destroy(c->auth);
    conf_destroy(c->conf);
    free(c);
    errno = saved;
}

int cli_call(uint16_t type, json_t *req, json_t **reply, struct err *e)
{
    struct err local;
    bool transport;

    if (cli_default == NULL) {
        cli_default = cli_client_open(cli_conf_path(), -1, &local);
        if (cli_default == NULL) {
            cli_error("%s", local.text);
            exit(1);
        }
    }
    if (cli_client_call(cli_default, type, req, reply, &transport, e) == 0) {
        if (!cli_raw)
            cli_escape_json(*reply);
        return 0;
    }
    if (transport) {
        cli_error("%s", e->text);
        exit(1);
    }
    return -1;
}

int cli_paged_query(uint16_t type, json_t *req, json_t **jobs, struct err *e)
{
    json_t *page = json_copy(req), *all = json_array();
    json_int_t after = 0;

    for (;;) {
        json_t *reply = NULL, *next;
        if (cli_call(type, page, &reply, e) < 0) {
            json_decref(page);
            json_decref(all);
            return -1;
        }
        json_array_extend(all, json_object_get(reply, "jobs"));
        next = json_object_get(reply, "next_after_job_id");
        /* Pages must move forward; anything else ends the listing. */
        if (!json_is_integer(next) || json_integer_value(next) <= after) {
            json_decref(reply);
            break;
        }
        after = json_integer_value(next);
        json_object_set_new(page, "after_job_id", json_integer(after));
        json_decref(reply);
    }
    json_decref(page);
    *jobs = all;
    return 0;
}

int cli_job_query(json_t *req, json_t **jobs, struct err *e)
{
    return cli_paged_query(PROTO_MSG_JOB_QUERY, req, jobs, e);
}

const char *cli_cluster_name(void)
{
    const struct conf *c = cli_default ? cli_client_conf(cli_default) : NULL;

    return c != NULL && c->cluster_name != NULL ? c->cluster_name : "";
}

static bool cli_json_sluice_set;

bool cli_json_sluice(void)
{
    return cli_json_sluice_set;
}

int cli_json_schema(const char *arg, bool *sluice, struct err *e)
{
    *sluice = arg != NULL && strcmp(arg, "sluice") == 0;
    cli_json_sluice_set = *sluice;
    if (arg == NULL || *sluice)
        return 0;
    errno = EINVAL;
    return err_set(e,
                   "--json=%s: unknown schema (--json is Slurm's, "
                   "--json=sluice Sluice's own)",
                   arg);
}

void cli_print_json(json_t *o)
{
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(o);
}

void cli_close(void)
{
    cli_client_close(cli_default);
    cli_default = NULL;
}
