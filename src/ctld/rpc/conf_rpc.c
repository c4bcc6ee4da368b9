/*
 * CONFIG_QUERY (scontrol show config): the cluster keys as the controller
 * runs them.  RECONFIGURE (scontrol reconfigure, operators): the file
 * read again and checked; an invalid one is refused with its errors and
 * the running configuration stays; a valid one is reported key by key,
 * node by node, and handed to the root, which rebuilds the controller
 * on it once the reply is out (docs/cli.md).  SET_DEBUG (scontrol
 * setdebug, administrators): the controller's log level until the next
 * reconfigure or restart, as in Slurm.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/queue/jobs.h"
#include "ctld/rpc/rpc.h"

/* The canonical print's lines of one kind: cluster keys ("Key=value",
 * kind 0), "NodeName=..." (1) or "PartitionName=..." (2), in a new array
 * of strings. */
static json_t *conf_lines(const struct conf *c, int kind)
{
    json_t *out = json_array();
    char *text = NULL, *p, *line;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    conf_print(c, fp);
    fclose(fp);
    for (p = text; (line = strsep(&p, "\n")) != NULL;) {
        int k = strncmp(line, "NodeName=", 9) == 0         ? 1
                : strncmp(line, "PartitionName=", 14) == 0 ? 2
                                                           : 0;
        if (line[0] == '\0' || line[0] == '#' || strchr(line, '=') == NULL ||
            k != kind)
            continue;
        json_array_append_new(out, json_string(line));
    }
    free(text);
    return out;
}

/* Whether line is "Key=..." for key. */
static bool is_key(const char *line, const char *key)
{
    size_t n = strlen(key);

    return strncmp(line, key, n) == 0 && line[n] == '=';
}

int rpc_config_query(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *lines = conf_lines(r->env->conf, 0), *cfg = json_array(), *v;
    const struct rpc_debug *d = r->env->debug;
    size_t i;

    (void)e;
    json_array_foreach(lines, i, v)
    {
        const char *s = json_string_value(v), *eq = strchr(s, '=');
        if (d != NULL && d->level >= 0 && is_key(s, "SlurmctldDebug"))
            continue; /* scontrol setdebug's, below */
        json_array_append_new(
            cfg, json_pack("[s%, s]", s, (size_t)(eq - s), eq + 1));
    }
    if (d != NULL && d->level >= 0)
        json_array_append_new(
            cfg, json_pack("[s, s]", "SlurmctldDebug",
                           conf_debug_name((enum conf_debug)d->level)));
    json_array_append_new(
        cfg,
        json_pack("[s, s]", "SLURM_CONF",
                  r->env->conf_path ? r->env->conf_path : CONF_DEFAULT_PATH));
    json_array_append_new(cfg,
                          json_pack("[s, s]", "SLURM_VERSION", SLUICE_VERSION));
    json_decref(lines);
    *reply =
        json_pack("{s:I, s:o}", "time", (json_int_t)time(NULL), "config", cfg);
    return 0;
}

/* The name of a NodeName=/PartitionName= line ("node01"), into buf. */
static const char *line_name(const char *line, char *buf, size_t len)
{
    const char *v = strchr(line, '=') + 1;

    snprintf(buf, len, "%.*s", (int)strcspn(v, " "), v);
    return buf;
}

static const char *find_line(json_t *lines, const char *key, size_t klen)
{
    json_t *v;
    size_t i;

    json_array_foreach(lines, i, v)
    {
        const char *s = json_string_value(v);
        if (strncmp(s, key, klen) == 0 && (s[klen] == '=' || s[klen] == ' '))
            return s;
    }
    return NULL;
}

/* The keys that need a restart of sluicectld to change. */
static bool needs_restart(const char *key, size_t n)
{
    static const char *const keys[] = {
        "SlurmctldHost",     "SlurmctldPort",  "SlurmdPort",
        "StateSaveLocation", "AuthType",       "AuthInfo",
        "ClusterName",       "SluiceRestAddr", NULL};

    for (size_t i = 0; keys[i] != NULL; i++)
        if (strlen(keys[i]) == n && strncmp(keys[i], key, n) == 0)
            return true;
    return false;
}

/* "KEY changed: OLD -> NEW" for each cluster key (fatal ones into
 * *refuse), then nodes and partitions added, changed, removed. */
static void diff_keys(json_t *a, json_t *b, json_t *changes, json_t *refuse)
{
    json_t *v;
    size_t i;

    json_array_foreach(b, i, v)
    {
        const char *s = json_string_value(v), *eq = strchr(s, '=');
        size_t n = (size_t)(eq - s);
        const char *old = find_line(a, s, n);
        json_t *to = needs_restart(s, n) ? refuse : changes;
        if (old == NULL)
            json_array_append_new(
                to, json_sprintf("%.*s set: %s", (int)n, s, eq + 1));
        else if (strcmp(old, s) != 0)
            json_array_append_new(to,
                                  json_sprintf("%.*s changed: %s -> %s", (int)n,
                                               s, old + n + 1, eq + 1));
    }
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v), *eq = strchr(s, '=');
        size_t n = (size_t)(eq - s);
        if (find_line(b, s, n) == NULL)
            json_array_append_new(
                needs_restart(s, n) ? refuse : changes,
                json_sprintf("%.*s unset (was %s)", (int)n, s, eq + 1));
    }
}

/* Whether an unfinished job is in partition or on node name. */
static bool in_use(struct jobs *js, const struct conf *c, bool part,
                   const char *name)
{
    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        if (job_state_final(j->state))
            continue;
        if (part && strcmp(c->parts[j->part].name, name) == 0)
            return true;
        for (size_t k = 0; !part && k < j->n_alloc; k++)
            if (strcmp(c->nodes[j->alloc[k]].name, name) == 0)
                return true;
    }
    return false;
}

static void diff_objects(struct rpc *r, const struct conf *next, int kind,
                         json_t *changes, json_t *refuse)
{
    const char *what = kind == 1 ? "node" : "partition";
    json_t *a = conf_lines(r->env->conf, kind), *b = conf_lines(next, kind);
    char name[256];
    json_t *v;
    size_t i;

    json_array_foreach(b, i, v)
    {
        const char *s = json_string_value(v), *old;
        line_name(s, name, sizeof(name));
        old = find_line(a, s, (size_t)(strchr(s, '=') - s + 1 + strlen(name)));
        if (old == NULL)
            json_array_append_new(
                changes, json_sprintf("%s %s added: %s", what, name, s));
        else if (strcmp(old, s) != 0)
            json_array_append_new(
                changes, json_sprintf("%s %s changed: %s", what, name, s));
    }
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        line_name(s, name, sizeof(name));
        if (find_line(b, s, (size_t)(strchr(s, '=') - s + 1 + strlen(name))) !=
            NULL)
            continue;
        if (in_use(r->env->jobs, r->env->conf, kind == 2, name))
            json_array_append_new(refuse,
                                  json_sprintf("%s %s removed while jobs "
                                               "still use it",
                                               what, name));
        else
            json_array_append_new(changes,
                                  json_sprintf("%s %s removed", what, name));
    }
    json_decref(a);
    json_decref(b);
}

/* All of refuse as one message: "a; b; c". */
static int refused(json_t *refuse, struct err *e)
{
    char buf[ERR_TEXT_MAX];
    size_t len = 0;
    json_t *v;
    size_t i;

    buf[0] = '\0';
    json_array_foreach(refuse, i, v)
    {
        int n = snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "; " : "",
                         json_string_value(v));
        if (n < 0 || (size_t)n >= sizeof(buf) - len)
            break;
        len += (size_t)n;
    }
    errno = EINVAL;
    return err_set(e,
                   "%s (it cannot change without a restart of sluicectld; "
                   "the running configuration is kept)",
                   buf);
}

int rpc_reconfigure(struct rpc *r, json_t **reply, struct err *e)
{
    const char *path = r->env->conf_path;
    struct conf_diag diag;
    json_t *changes, *refuse, *a, *b;
    struct conf *next;
    struct rpc_debug *d = r->env->debug;
    char line[1024];
    bool rebuild;

    if (!acct_is_operator(r->env->acct, r->who.uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (path == NULL || r->env->reconfigure == NULL) {
        errno = EOPNOTSUPP;
        return err_set(e, "this controller cannot reconfigure");
    }
    conf_diag_init(&diag);
    next = conf_load(path, &diag, e);
    if (next == NULL) {
        /* the first error with its file and line, as check-config says */
        for (size_t i = 0; i < diag.n; i++)
            if (diag.items[i].severity == CONF_ERROR) {
                err_set(e, "%s",
                        conf_diag_format(&diag.items[i], line, sizeof(line)));
                break;
            }
        conf_diag_free(&diag);
        log_warnx("reconfigure refused uid=%u: %s", (unsigned)r->who.uid,
                  e->text);
        errno = EINVAL;
        return -1;
    }
    conf_diag_free(&diag);
    changes = json_array();
    refuse = json_array();
    a = conf_lines(r->env->conf, 0);
    b = conf_lines(next, 0);
    diff_keys(a, b, changes, refuse);
    json_decref(a);
    json_decref(b);
    diff_objects(r, next, 1, changes, refuse);
    diff_objects(r, next, 2, changes, refuse);
    if (json_array_size(refuse) > 0) {
        refused(refuse, e);
        log_warnx("reconfigure refused uid=%u: %s", (unsigned)r->who.uid,
                  e->text);
        json_decref(changes);
        json_decref(refuse);
        conf_destroy(next);
        return -1;
    }
    json_decref(refuse);
    rebuild = json_array_size(changes) > 0;
    for (size_t i = 0; i < json_array_size(changes); i++)
        log_info("reconfigure: %s",
                 json_string_value(json_array_get(changes, i)));
    log_info("reconfigure uid=%u file=%s changes=%zu", (unsigned)r->who.uid,
             path, json_array_size(changes));
    if (d != NULL && d->level >= 0) {
        /* the file's level again, as in Slurm: at once when nothing is
         * rebuilt, else with the rebuild */
        json_t *undone = json_sprintf(
            "SlurmctldDebug: scontrol setdebug's %s undone, back to %s",
            conf_debug_name((enum conf_debug)d->level),
            conf_debug_name(next->slurmctld_debug));
        log_info("reconfigure: %s", json_string_value(undone));
        json_array_append_new(changes, undone);
        if (!rebuild)
            log_set_level(d->before);
        d->level = -1;
    }
    if (!rebuild)
        conf_destroy(next); /* nothing to rebuild */
    else
        r->env->reconfigure(r->env->reconf_arg, next);
    *reply = json_pack("{s:o}", "changes", changes);
    return 0;
}

int rpc_set_debug(struct rpc *r, json_t **reply, struct err *e)
{
    struct rpc_debug *d = r->env->debug;
    const char *s = json_string_value(json_object_get(r->req->body, "level"));
    enum conf_debug level;
    enum log_level before = log_get_level(), next;
    const char *was;

    if (!acct_is_administrator(r->env->acct, r->who.uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (d == NULL) {
        errno = EOPNOTSUPP;
        return err_set(e, "this controller cannot change its log level");
    }
    if (s == NULL) {
        errno = EINVAL;
        return err_set(e, "SET_DEBUG needs \"level\": a string");
    }
    if (conf_debug_parse(s, &level, e) < 0)
        return -1;
    was = conf_debug_name(d->level >= 0 ? (enum conf_debug)d->level
                                        : r->env->conf->slurmctld_debug);
    next = daemon_log_level(level, false);
    if (d->level < 0)
        d->before = before;
    d->level = (int)level;
    /* the change is logged at whichever of the two levels says more */
    log_set_level(next > before ? next : before);
    log_info("setdebug uid=%u: SlurmctldDebug %s -> %s (until the next "
             "reconfigure or restart)",
             (unsigned)r->who.uid, was, conf_debug_name(level));
    log_set_level(next);
    *reply =
        json_pack("{s:s, s:s}", "level", conf_debug_name(level), "was", was);
    return 0;
}
