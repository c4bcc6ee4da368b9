/*
 * The sbatch options added for Slurm compatibility (comment, wckey,
 * deadline, node shape, binding, mail, open mode, ...): each value checked
 * and put in the JOBSPEC under the key docs/protocol.md names.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/jobspec.h"
#include "cli/optval.h"
#include "cli/when.h"
#include "common/value.h"

#define JSS_MAX_COUNT 1048576u
#define JSS_MAX_SHAPE 65535u

static int jss_string(struct jobspec *js, const char *key, const char *arg,
                      struct err *e)
{
    if (arg[0] == '\0')
        return err_inval(e, "empty value");
    json_object_set_new(js->job, key, json_string(arg));
    return 0;
}

/* A free-text option: Slurm takes an empty one as not given. */
static int jss_text(struct jobspec *js, const char *key, const char *arg)
{
    if (arg[0] == '\0')
        json_object_del(js->job, key);
    else
        json_object_set_new(js->job, key, json_string(arg));
    return 0;
}

static int jss_count(struct jobspec *js, const char *key, const char *arg,
                     uint64_t max, struct err *e)
{
    uint64_t v;

    if (value_parse_u64(arg, 1, max, &v, e) < 0)
        return -1;
    json_object_set_new(js->job, key, json_integer((json_int_t)v));
    return 0;
}

/* Whether word[0..n) is one of the NULL-terminated names (any case). */
static bool jss_one_of(const char *word, size_t n, const char *const *names)
{
    for (; *names != NULL; names++)
        if (strlen(*names) == n && strncasecmp(word, *names, n) == 0)
            return true;
    return false;
}

static int jss_deadline(struct jobspec *js, const char *arg, time_t now,
                        struct err *e)
{
    time_t t;

    if (when_parse(arg, now, WHEN_NEXT, &t, e) < 0)
        return -1;
    json_object_set_new(js->job, "deadline", json_integer((json_int_t)t));
    return 0;
}

static int jss_time_min(struct jobspec *js, const char *arg, struct err *e)
{
    int64_t secs;

    if (optval_time_limit(arg, &secs, e) < 0)
        return -1;
    if (secs <= 0)
        return err_inval(e, "expected a time above 0");
    json_object_set_new(js->job, "time_min_s", json_integer(secs));
    return 0;
}

static int jss_tmp(struct jobspec *js, const char *arg, struct err *e)
{
    uint64_t mib;

    if (value_parse_mem_mib(arg, &mib, e) < 0)
        return -1;
    json_object_set_new(js->job, "tmp_mib", json_integer((json_int_t)mib));
    return 0;
}

/* --exclusive[=user|mcs]: "node" without a value; as in Slurm (whose
 * SBATCH_EXCLUSIVE carries them) also =exclusive and =oversubscribe. */
static int jss_exclusive(struct jobspec *js, const char *arg, struct err *e)
{
    const char *v = "node";

    if (arg != NULL && strcasecmp(arg, "oversubscribe") == 0) {
        json_object_del(js->job, "exclusive");
        json_object_set_new(js->job, "oversubscribe", json_true());
        return 0;
    }
    if (arg != NULL && strcasecmp(arg, "user") == 0)
        v = "user";
    else if (arg != NULL && strcasecmp(arg, "mcs") == 0)
        v = "mcs";
    else if (arg != NULL && strcasecmp(arg, "exclusive") != 0)
        return err_inval(e, "expected user, mcs or no value");
    /* one setting in Slurm: the later of --exclusive and -s wins */
    json_object_del(js->job, "oversubscribe");
    json_object_set_new(js->job, "exclusive", json_string(v));
    return 0;
}

/* -C: a feature expression: names with counts (*N), & | , and [ ]
 * groups; the controller matches it against the nodes' features. */
static int jss_constraint(struct jobspec *js, const char *arg, struct err *e)
{
    int depth = 0;

    for (const char *p = arg; *p != '\0' && depth >= 0; p++) {
        if (*p == '[' || *p == '(')
            depth++;
        else if (*p == ']' || *p == ')')
            depth--;
        else if (!isalnum((unsigned char)*p) && strchr("_-.:=*&|,", *p) == 0)
            return err_inval(e, "unexpected '%c' in a feature expression", *p);
    }
    if (depth != 0)
        return err_inval(e, "unbalanced brackets in a feature expression");
    return jss_string(js, "constraint", arg, e);
}

/* One part of -B: a count or '*' (any). */
static int jss_shape_part(struct jobspec *js, const char *key, const char *p,
                          size_t n, struct err *e)
{
    char buf[32];

    if (n == 1 && p[0] == '*')
        return 0;
    if (n == 0 || n >= sizeof(buf))
        return err_inval(e, "expected S[:C[:T]] with counts or *");
    memcpy(buf, p, n);
    buf[n] = '\0';
    return jss_count(js, key, buf, JSS_MAX_SHAPE, e);
}

/* -B SOCKETS[:CORES[:THREADS]] */
static int jss_extra_node_info(struct jobspec *js, const char *arg,
                               struct err *e)
{
    static const char *const keys[] = {"sockets_per_node", "cores_per_socket",
                                       "threads_per_core"};
    const char *p = arg;

    for (int i = 0; i < 3; i++) {
        size_t n = strcspn(p, ":");
        if (jss_shape_part(js, keys[i], p, n, e) < 0)
            return -1;
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
    return err_inval(e, "expected S[:C[:T]] (at most three parts)");
}

static int jss_gres_flags(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const ok[] = {"enforce-binding", "disable-binding",
                                     NULL};

    if (!jss_one_of(arg, strlen(arg), ok))
        return err_inval(e, "expected enforce-binding or disable-binding");
    json_object_set_new(js->job, "gres_flags", json_string(arg));
    return 0;
}

/* A binding: [verbose|quiet,]TYPE[:LIST] with TYPE one of types (a type
 * ending in ':' takes a list). */
static int jss_bind(struct jobspec *js, const char *key, const char *arg,
                    const char *const *types, const char *what, struct err *e)
{
    const char *p = arg;
    size_t n;

    while (
        (n = strcspn(p, ",")) > 0 && p[n] == ',' &&
        (strncasecmp(p, "verbose", n) == 0 || strncasecmp(p, "quiet", n) == 0))
        p += n + 1;
    n = strlen(p);
    if (n > 0 && (strncasecmp(p, "verbose", n) == 0 ||
                  strncasecmp(p, "quiet", n) == 0)) {
        /* only the reporting ("q", "v" as short): the default binding */
        json_object_set_new(js->job, key, json_string(arg));
        return 0;
    }
    n = strcspn(p, ":=");
    for (const char *const *t = types; *t != NULL; t++) {
        size_t tn = strcspn(*t, ":");
        bool list = (*t)[tn] == ':';
        if (tn != n || strncasecmp(p, *t, n) != 0)
            continue;
        if (list != (p[n] != '\0') || (list && p[n + 1] == '\0'))
            break;
        json_object_set_new(js->job, key, json_string(arg));
        return 0;
    }
    return err_inval(e, "expected %s", what);
}

static int jss_gpu_bind(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const types[] = {
        "closest",   "none",    "map_gpu:", "mask_gpu:",
        "per_task:", "single:", NULL};

    return jss_bind(js, "gpu_bind", arg, types,
                    "[verbose,]closest|none|map_gpu:LIST|mask_gpu:LIST|"
                    "per_task:N|single:N",
                    e);
}

static int jss_cpu_bind(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const types[] = {"none",      "no",         "rank",
                                        "map_cpu:",  "mask_cpu:",  "rank_ldom",
                                        "map_ldom:", "mask_ldom:", "sockets",
                                        "cores",     "threads",    "ldoms",
                                        "boards",    NULL};

    return jss_bind(js, "cpu_bind", arg, types,
                    "[verbose|quiet,]none|rank|map_cpu:LIST|mask_cpu:LIST|"
                    "rank_ldom|map_ldom:LIST|mask_ldom:LIST|sockets|cores|"
                    "threads|ldoms|boards",
                    e);
}

static int jss_hint(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const ok[] = {"compute_bound", "memory_bound",
                                     "multithread", "nomultithread", NULL};

    if (!jss_one_of(arg, strlen(arg), ok))
        return err_inval(e, "expected compute_bound, memory_bound, "
                            "multithread or nomultithread");
    json_object_set_new(js->job, "hint", json_string(arg));
    return 0;
}

/* -m {*|block|cyclic|arbitrary|plane=N}[:{*|block|cyclic|fcyclic}
 * [:{*|block|cyclic|fcyclic}]][,Pack|NoPack] */
static int jss_distribution(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const first[] = {"*", "block", "cyclic", "arbitrary",
                                        NULL};
    static const char *const inner[] = {"*", "block", "cyclic", "fcyclic",
                                        NULL};
    static const char *const pack[] = {"pack", "nopack", NULL};
    const char *p = arg, *comma = strchr(arg, ',');
    size_t end = comma ? (size_t)(comma - arg) : strlen(arg);
    size_t n = strcspn(p, ":,");
    uint64_t plane;
    int level = 0;

    if (n > 6 && strncasecmp(p, "plane=", 6) == 0) {
        char buf[16];
        if (n - 6 >= sizeof(buf))
            goto bad;
        memcpy(buf, p + 6, n - 6);
        buf[n - 6] = '\0';
        if (value_parse_u64(buf, 1, JSS_MAX_COUNT, &plane, e) < 0)
            goto bad;
    } else if (!jss_one_of(p, n, first)) {
        goto bad;
    }
    while (p[n] == ':' && (size_t)(p + n - arg) < end) {
        p += n + 1;
        n = strcspn(p, ":,");
        if (++level > 2 || !jss_one_of(p, n, inner))
            goto bad;
    }
    if (comma != NULL && !jss_one_of(comma + 1, strlen(comma + 1), pack))
        goto bad;
    json_object_set_new(js->job, "distribution", json_string(arg));
    return 0;
bad:
    return err_inval(e, "expected block, cyclic, arbitrary or plane=N, "
                        "then up to two :block|:cyclic|:fcyclic and "
                        ",Pack or ,NoPack");
}

/* --priority=N or TOP */
static int jss_priority(struct jobspec *js, const char *arg, struct err *e)
{
    uint64_t v;

    if (strcasecmp(arg, "TOP") == 0) {
        json_object_set_new(js->job, "priority",
                            json_integer(JOBSPEC_PRIORITY_TOP));
        return 0;
    }
    if (value_parse_u64(arg, 0, (uint64_t)JOBSPEC_PRIORITY_TOP, &v, e) < 0)
        return err_inval(e, "expected a number from 0 to %lld or TOP",
                         JOBSPEC_PRIORITY_TOP);
    json_object_set_new(js->job, "priority", json_integer((json_int_t)v));
    return 0;
}

/* --uid / --gid: a name or a number. */
static int jss_id(struct jobspec *js, const char *key, const char *arg,
                  bool group, struct err *e)
{
    uint64_t v;
    struct err ign;

    if (arg[0] == '\0')
        return err_inval(e, "empty value");
    if (value_parse_u64(arg, 0, 4294967294u, &v, &ign) == 0) {
        /* a number */
    } else if (group) {
        struct group *g = getgrnam(arg);
        if (g == NULL)
            return err_inval(e, "no such group");
        v = g->gr_gid;
    } else {
        struct passwd *pw = getpwnam(arg);
        if (pw == NULL)
            return err_inval(e, "no such user");
        v = pw->pw_uid;
    }
    json_object_set_new(js->job, key, json_integer((json_int_t)v));
    return 0;
}

/* Slurm's mail types in the order it prints them; ALL is the first six. */
static const char *const mail_types[] = {
    "INVALID_DEPEND", "BEGIN",         "END",         "FAIL",
    "REQUEUE",        "STAGE_OUT",     "TIME_LIMIT",  "TIME_LIMIT_90",
    "TIME_LIMIT_80",  "TIME_LIMIT_50", "ARRAY_TASKS", NULL};
#define MAIL_ALL_N 6

/* --mail-type=TYPE[,TYPE...]: canonical, in Slurm's order; NONE clears. */
static int jss_mail_type(struct jobspec *js, const char *arg, struct err *e)
{
    bool on[16] = {false};
    const char *p = arg;
    char out[256] = "";

    for (;;) {
        size_t n = strcspn(p, ",");
        int i;
        for (i = 0; mail_types[i] != NULL; i++)
            if (strlen(mail_types[i]) == n &&
                strncasecmp(p, mail_types[i], n) == 0)
                break;
        if (mail_types[i] != NULL) {
            on[i] = true;
        } else if (n == 3 && strncasecmp(p, "ALL", 3) == 0) {
            for (i = 0; i < MAIL_ALL_N; i++)
                on[i] = true;
        } else if (n == 4 && strncasecmp(p, "NONE", 4) == 0) {
            memset(on, 0, sizeof(on));
        } else {
            return err_inval(e,
                             "invalid mail type '%.*s' (expected NONE, "
                             "BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, "
                             "STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, "
                             "TIME_LIMIT_80, TIME_LIMIT_50 or ARRAY_TASKS)",
                             (int)n, p);
        }
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    for (int i = 0; mail_types[i] != NULL; i++)
        if (on[i]) {
            if (out[0] != '\0')
                strcat(out, ",");
            strcat(out, mail_types[i]);
        }
    json_object_set_new(js->job, "mail_type",
                        json_string(out[0] ? out : "NONE"));
    return 0;
}

/* --open-mode: Slurm reads the first letter (SLURM_OPEN_MODE is "a" or
 * "t"). */
static int jss_open_mode(struct jobspec *js, const char *arg, struct err *e)
{
    if (arg[0] == 'a' || arg[0] == 'A')
        json_object_set_new(js->job, "open_mode", json_string("append"));
    else if (arg[0] == 't' || arg[0] == 'T')
        json_object_set_new(js->job, "open_mode", json_string("truncate"));
    else
        return err_inval(e, "expected append or truncate");
    return 0;
}

/* --get-user-env[=TIMEOUT][S|L]: true without a value, else the text. */
static int jss_get_user_env(struct jobspec *js, const char *arg, struct err *e)
{
    const char *p = arg;

    if (arg == NULL) {
        json_object_set_new(js->job, "get_user_env", json_true());
        return 0;
    }
    while (isdigit((unsigned char)*p))
        p++;
    if (p - arg > 6 ||
        (*p != '\0' && (strchr("SsLl", *p) == NULL || p[1] != '\0')) ||
        arg[0] == '\0')
        return err_inval(e, "expected [TIMEOUT][S|L]");
    json_object_set_new(js->job, "get_user_env", json_string(arg));
    return 0;
}

/* --propagate[=RLIMIT,...]: ALL without a value; canonical upper case. */
static int jss_propagate(struct jobspec *js, const char *arg, struct err *e)
{
    static const char *const names[] = {
        "ALL",     "NONE",   "AS",    "CORE", "CPU",   "DATA", "FSIZE",
        "MEMLOCK", "NOFILE", "NPROC", "RSS",  "STACK", NULL};
    char out[256];
    size_t o = 0;
    const char *p = arg;

    if (arg == NULL) {
        json_object_set_new(js->job, "propagate", json_string("ALL"));
        return 0;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        const char *w = p;
        if (n >= 7 && strncasecmp(w, "RLIMIT_", 7) == 0) {
            w += 7;
            n -= 7;
        }
        if (!jss_one_of(w, n, names) || o + n + 2 > sizeof(out))
            return err_inval(e,
                             "invalid resource limit '%.*s' (expected ALL, "
                             "NONE, AS, CORE, CPU, DATA, FSIZE, MEMLOCK, "
                             "NOFILE, NPROC, RSS or STACK)",
                             (int)strcspn(p, ","), p);
        if (o > 0)
            out[o++] = ',';
        for (size_t i = 0; i < n; i++)
            out[o++] = (char)toupper((unsigned char)w[i]);
        if (p[strcspn(p, ",")] == '\0')
            break;
        p += strcspn(p, ",") + 1;
    }
    out[o] = '\0';
    json_object_set_new(js->job, "propagate", json_string(out));
    return 0;
}

static int jss_flag(struct jobspec *js, const char *key)
{
    json_object_set_new(js->job, key, json_true());
    return 0;
}

int jobspec_set_slurm(struct jobspec *js, int id, const char *arg, time_t now,
                      struct err *e)
{
    switch (id) {
    case JS_COMMENT:
        return jss_text(js, "comment", arg);
    case JS_WCKEY:
        return jss_text(js, "wckey", arg);
    case JS_DEADLINE:
        return jss_deadline(js, arg, now, e);
    case JS_TIME_MIN:
        return jss_time_min(js, arg, e);
    case JS_TMP:
        return jss_tmp(js, arg, e);
    case JS_MINCPUS:
        return jss_count(js, "mincpus", arg, JSS_MAX_COUNT, e);
    case JS_EXCLUSIVE:
        return jss_exclusive(js, arg, e);
    case JS_OVERSUBSCRIBE:
        json_object_del(js->job, "exclusive");
        return jss_flag(js, "oversubscribe");
    case JS_CONSTRAINT:
        return jss_constraint(js, arg, e);
    case JS_EXTRA_NODE_INFO:
        return jss_extra_node_info(js, arg, e);
    case JS_SOCKETS_PER_NODE:
        return jss_count(js, "sockets_per_node", arg, JSS_MAX_SHAPE, e);
    case JS_CORES_PER_SOCKET:
        return jss_count(js, "cores_per_socket", arg, JSS_MAX_SHAPE, e);
    case JS_THREADS_PER_CORE:
        return jss_count(js, "threads_per_core", arg, JSS_MAX_SHAPE, e);
    case JS_NTASKS_PER_GPU:
        return jss_count(js, "ntasks_per_gpu", arg, JSS_MAX_COUNT, e);
    case JS_GRES_FLAGS:
        return jss_gres_flags(js, arg, e);
    case JS_GPU_BIND:
        return jss_gpu_bind(js, arg, e);
    case JS_CPU_BIND:
        return jss_cpu_bind(js, arg, e);
    case JS_HINT:
        return jss_hint(js, arg, e);
    case JS_DISTRIBUTION:
        return jss_distribution(js, arg, e);
    case JS_SPREAD_JOB:
        return jss_flag(js, "spread_job");
    case JS_USE_MIN_NODES:
        return jss_flag(js, "use_min_nodes");
    case JS_PRIORITY:
        return jss_priority(js, arg, e);
    case JS_UID:
        return jss_id(js, "uid", arg, false, e);
    case JS_GID:
        return jss_id(js, "gid", arg, true, e);
    case JS_RESERVATION:
        return jss_text(js, "reservation", arg);
    case JS_MAIL_TYPE:
        return jss_mail_type(js, arg, e);
    case JS_MAIL_USER:
        return jss_text(js, "mail_user", arg);
    case JS_OPEN_MODE:
        return jss_open_mode(js, arg, e);
    case JS_GET_USER_ENV:
        return jss_get_user_env(js, arg, e);
    case JS_PROPAGATE:
        return jss_propagate(js, arg, e);
    case JS_WAIT:
        js->wait = true;
        return 0;
    default:
        return err_inval(e, "unknown option id %d", id);
    }
}

int jobspec_wait_status(json_t *job)
{
    json_t *ec = json_object_get(job, "exit_code");
    json_int_t rc = json_integer_value(json_object_get(ec, "return_code"));
    json_int_t sig = json_integer_value(json_object_get(ec, "signal"));

    if (rc > 0)
        return rc > 255 ? 255 : (int)rc;
    if (sig > 0)
        return 128 + (int)(sig & 127);
    return 0;
}
