/*
 * Submission: a JOBSPEC from the wire, checked field by field (the CLI
 * checks too, but the controller trusts nothing), resolved against its
 * partition (default time, MaxTime, whether it can ever fit) and turned
 * into a pending job.  Also JOB_UPDATE, which reuses the same checks.
 */
#include "ctld/acct/acct.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/specval.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/gres.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobarray.h"
#include "ctld/queue/jobdep.h"
#include "ctld/queue/jobspec_opts.h"
#include "ctld/policy/jlimits.h"
#include "ctld/job/jobacct.h"
#include "ctld/job/jobgpu.h"
#include "ctld/job/mail.h"
#include "ctld/cluster/parts.h"
#include "ctld/cluster/resv.h"

/* What one submission may store (docs/limits.md, "Submission size").
 * The script's limit is SchedulerParameters=max_script_size; argv and
 * the environment are bounded as execve bounds them on Linux (128 KiB a
 * string), with totals well inside its 2 MiB default. */
#define SPEC_MAX_NAME 1024  /* name, account, qos, partition, gres */
#define SPEC_MAX_PATH 4096  /* directories, files, node lists, deps */
#define SPEC_MAX_ARRAY 8192 /* --array, e.g. a list of 1,000 ids */
#define SPEC_MAX_ARGS 4096  /* argv entries */
#define SPEC_MAX_ARGV_BYTES (1u << 20) /* argv in all */
#define SPEC_MAX_ENV_VARS 8192         /* environment variables */
#define SPEC_MAX_ENV_BYTES (1u << 20)  /* NAME=value strings in all */
#define SPEC_MAX_STRING (128u << 10)   /* one argv or NAME=value string */

/* time_limit_s: seconds >= 1, or -1, "INFINITE" or "UNLIMITED" for no
 * limit; null: unset. */
static int parse_time_limit(json_t *v, int64_t *out, bool *given, struct err *e)
{
    *given = false;
    if (v == NULL || json_is_null(v))
        return 0;
    *given = true;
    if ((json_is_integer(v) && json_integer_value(v) == -1) ||
        (json_is_string(v) &&
         (strcasecmp(json_string_value(v), "INFINITE") == 0 ||
          strcasecmp(json_string_value(v), "UNLIMITED") == 0))) {
        *out = TIMEFMT_INFINITE;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return err_inval(e,
                         "job time_limit_s: expected seconds (at least 1), or "
                         "-1 or \"INFINITE\" for no limit");
    /* a century or more is no limit: start_time + secs cannot overflow */
    *out = json_integer_value(v) >= JOBS_TIME_LIMIT_MAX_S
               ? TIMEFMT_INFINITE
               : json_integer_value(v);
    return 0;
}

int jobs_node_filter(const struct conf *conf, const char *nodelist,
                     const char *exclude, bool **allowed, struct err *e)
{
    const char *exprs[2] = {nodelist, exclude};
    bool *a;

    *allowed = NULL;
    if (nodelist == NULL && exclude == NULL)
        return 0;
    a = xcalloc(conf->n_nodes ? conf->n_nodes : 1, sizeof(*a));
    for (size_t i = 0; i < conf->n_nodes; i++)
        a[i] = nodelist == NULL;
    for (int k = 0; k < 2; k++) {
        struct hostlist *hl;
        if (exprs[k] == NULL)
            continue;
        hl = hostlist_expand(exprs[k], e);
        if (hl == NULL) {
            free(a);
            errno = EINVAL;
            return err_prefix(e, "job %s", k ? "exclude" : "nodelist");
        }
        for (size_t i = 0; i < hostlist_count(hl); i++) {
            const struct conf_node *n =
                conf_node_find(conf, hostlist_nth(hl, i));
            if (n == NULL) {
                err_inval(e, "invalid node name \"%s\" in job %s",
                          hostlist_nth(hl, i), k ? "exclude" : "nodelist");
                hostlist_destroy(hl);
                free(a);
                return -1;
            }
            a[n - conf->nodes] = k == 0;
        }
        hostlist_destroy(hl);
    }
    *allowed = a;
    return 0;
}

int jobs_check_fit(const struct conf *conf, const struct part *rp,
                   const struct job *j, struct err *e)
{
    const struct part *p = rp;
    uint64_t mem = job_mem_per_node(j), gpus = j->gpus_per_node;
    uint64_t max_mem = 0, max_gpus = 0;
    uint32_t max_cpus = 0;
    size_t usable = 0, fit = 0;

    for (size_t i = 0; i < p->n_nodes; i++) {
        const struct conf_node *n = &conf->nodes[p->node_idx[i]];
        uint64_t g = jobgpu_node_gpus(j, n);
        if ((j->node_allowed != NULL && !j->node_allowed[p->node_idx[i]]) ||
            (j->opt.node_ok != NULL && !j->opt.node_ok[p->node_idx[i]]))
            continue;
        usable++;
        max_cpus = n->cpus > max_cpus ? n->cpus : max_cpus;
        max_mem = n->mem_mib > max_mem ? n->mem_mib : max_mem;
        max_gpus = g > max_gpus ? g : max_gpus;
        if (n->cpus >= j->cpus_per_node && n->mem_mib >= mem && g >= gpus)
            fit++;
    }
    if (fit >= j->nodes)
        return 0;
    if (usable < j->nodes)
        return err_inval(e, "requested %u node%s but partition %s has %zu%s",
                         j->nodes, j->nodes == 1 ? "" : "s", p->cf->name,
                         usable,
                         j->node_allowed ? " that the node list allows" : "");
    if (max_cpus < j->cpus_per_node)
        return err_inval(e,
                         "requested %u CPUs per node but the largest node in "
                         "partition %s has %u",
                         j->cpus_per_node, p->cf->name, max_cpus);
    if (max_mem < mem)
        return err_inval(e,
                         "requested %" PRIu64 " MiB of memory per node but the "
                         "largest node in partition %s has %" PRIu64 " MiB",
                         mem, p->cf->name, max_mem);
    if (max_gpus < gpus)
        return jobgpu_fit_error(j, p->cf, max_gpus, e);
    return err_inval(e,
                     "requested %u nodes with %u CPUs, %" PRIu64 " MiB and %u "
                     "GPUs each but partition %s has only %zu such nodes",
                     j->nodes, j->cpus_per_node, mem, j->gpus_per_node,
                     p->cf->name, fit);
}

static int resolve_partition(const struct conf *conf, json_t *spec,
                             size_t *part, struct err *e)
{
    json_t *v = json_object_get(spec, "partition");
    const struct conf_part *p;

    if (v != NULL && !json_is_null(v)) {
        if (!json_is_string(v))
            return err_inval(e, "job partition: expected a string");
        if (spec_len(v, "partition", SPEC_MAX_NAME, e) < 0)
            return -1;
        p = conf_part_find(conf, json_string_value(v));
        if (p == NULL) {
            char list[ERR_TEXT_MAX / 2] = "";
            size_t len = 0;
            for (size_t i = 0; i < conf->n_parts && len < sizeof(list); i++)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                        i ? "," : "", conf->parts[i].name);
            return err_inval(
                e, "invalid partition name \"%.64s\" (partitions: %s)",
                json_string_value(v), list);
        }
    } else if ((p = conf_part_default(conf)) == NULL) {
        return err_inval(e, "no partition given and no default partition");
    }
    *part = (size_t)(p - conf->parts);
    return 0;
}

/* DRAIN and INACTIVE partitions take no new jobs (DOWN ones do). */
static int part_accepts(const struct parts *ps, size_t part, struct err *e)
{
    const struct part *p = parts_get(ps, part);

    if (p->state != CONF_PART_DRAIN && p->state != CONF_PART_INACTIVE)
        return 0;
    errno = EPERM;
    return err_set(e, "partition %s is %s: it accepts no new jobs", p->cf->name,
                   conf_part_state_name(p->state));
}

/* MinNodes/MaxNodes: rejected under EnforcePartLimits, else held. */
static int apply_node_limits(const struct conf *conf, const struct part *p,
                             struct job *j, struct err *e)
{
    j->part_node_limit = false;
    if (j->nodes >= p->min_nodes && j->nodes <= p->max_nodes)
        return 0;
    if (conf->enforce_part_limits == CONF_ENFORCE_NO) {
        j->part_node_limit = true;
        return 0;
    }
    if (j->nodes < p->min_nodes)
        return err_inval(
            e,
            "requested %u node%s but partition %s needs at least %u "
            "(MinNodes)",
            j->nodes, j->nodes == 1 ? "" : "s", p->cf->name, p->min_nodes);
    return err_inval(e,
                     "requested %u nodes but partition %s allows at most %u "
                     "(MaxNodes)",
                     j->nodes, p->cf->name, p->max_nodes);
}

/* DefMemPerGPU / DefMemPerCPU / DefMemPerNode (the partition's, else
 * the global): a job that asks for no memory gets them, so that it has a
 * limit; DefMemPerGPU only when it asks for GPUs, as in Slurm. */
static void apply_mem_default(const struct conf *conf, struct job *j)
{
    struct conf_mem m;

    if (j->mem_mib != 0 || j->mem_per_cpu_mib != 0 || j->mem_per_gpu_mib != 0)
        return;
    conf_part_mem(conf, &conf->parts[j->part], &m);
    if (m.def_per_gpu_mib != 0 && j->gpus_per_node > 0)
        j->mem_per_gpu_mib = m.def_per_gpu_mib;
    else if (m.def_per_cpu_mib != 0)
        j->mem_per_cpu_mib = m.def_per_cpu_mib;
    else
        j->mem_mib = m.def_per_node_mib;
}

/* MaxMemPerNode / MaxMemPerCPU of j's partition (else the global). */
static int check_mem_max(const struct conf *conf, const struct job *j,
                         struct err *e)
{
    const char *part = conf->parts[j->part].name;
    uint64_t node = job_mem_per_node(j), cpu;
    struct conf_mem m;

    conf_part_mem(conf, &conf->parts[j->part], &m);
    if (m.max_per_node_mib != 0 && node > m.max_per_node_mib)
        return err_inval(e,
                         "requested %" PRIu64 " MiB of memory per node but "
                         "partition %s allows at most %" PRIu64
                         " (MaxMemPerNode)",
                         node, part, m.max_per_node_mib);
    cpu = (node + j->cpus_per_node - 1) / j->cpus_per_node;
    if (m.max_per_cpu_mib != 0 && cpu > m.max_per_cpu_mib)
        return err_inval(e,
                         "requested %" PRIu64 " MiB of memory per CPU but "
                         "partition %s allows at most %" PRIu64
                         " (MaxMemPerCPU)",
                         cpu, part, m.max_per_cpu_mib);
    return 0;
}

/* --ntasks-per-node with -N and -n (Slurm's sbatch): without -n the job
 * has nodes * N tasks; with -n and without -N, as many nodes as N per
 * node needs; either way each node holds N tasks' CPUs. */
static void tasks_per_node(json_t *spec, int64_t ntpn, int64_t *nt, int64_t *nn)
{
    if (ntpn == 0)
        return;
    if (spec_given(spec, "ntasks") && !spec_given(spec, "nodes"))
        *nn = (*nt + ntpn - 1) / ntpn;
    else if (!spec_given(spec, "ntasks"))
        *nt = *nn * ntpn;
}

/* Resources: cpus, tasks, nodes, memory. */
static int parse_resources(json_t *spec, struct job *j, struct err *e)
{
    int64_t cpt = 1, nt = 1, nn = 1, mem = 0, mpc = 0, ntpn = 0;
    uint64_t cpus;

    if (spec_int(spec, "cpus_per_task", 1, 65535, &cpt, e) < 0 ||
        spec_int(spec, "ntasks", 1, 65535, &nt, e) < 0 ||
        spec_int(spec, "nodes", 1, CONF_MAX_NODES, &nn, e) < 0 ||
        spec_int(spec, "ntasks_per_node", 0, 65535, &ntpn, e) < 0 ||
        spec_int(spec, "mem_mib", 0, INT64_C(1) << 40, &mem, e) < 0 ||
        spec_int(spec, "mem_per_cpu_mib", 0, INT64_C(1) << 40, &mpc, e) < 0)
        return -1;
    if (mem != 0 && mpc != 0)
        return err_inval(e, "job mem_mib and mem_per_cpu_mib are mutually "
                            "exclusive");
    tasks_per_node(spec, ntpn, &nt, &nn);
    if (nt > 65535 || nn > CONF_MAX_NODES)
        return err_inval(e,
                         "job ntasks_per_node: %" PRId64 " tasks on %" PRId64
                         " nodes is more than a job may ask for",
                         nt, nn);
    j->cpus_per_task = (uint32_t)cpt;
    j->ntasks = (uint32_t)nt;
    j->nodes = (uint32_t)nn;
    j->ntasks_per_node = (uint32_t)ntpn;
    j->ntasks_set = spec_given(spec, "ntasks") || ntpn != 0;
    j->cpus_per_task_set = spec_given(spec, "cpus_per_task");
    cpus = (uint64_t)cpt * (uint64_t)nt;
    j->cpus_per_node = (uint32_t)((cpus + (uint64_t)nn - 1) / (uint64_t)nn);
    if ((uint64_t)ntpn * (uint64_t)cpt > j->cpus_per_node)
        j->cpus_per_node = (uint32_t)(ntpn * cpt);
    if (j->cpus_per_node == 0)
        j->cpus_per_node = 1;
    j->mem_mib = (uint64_t)mem;
    j->mem_per_cpu_mib = (uint64_t)mpc;
    if (mpc != 0 && (uint64_t)mpc > (UINT64_C(1) << 50) / j->cpus_per_node)
        return err_inval(e,
                         "job mem_per_cpu_mib: %" PRId64 " MiB for each of %u "
                         "CPUs is more memory than any node has",
                         mpc, j->cpus_per_node);
    return 0;
}

static int parse_strings(json_t *spec, struct job *j, struct err *e)
{
    struct gres_list gl;

    if (spec_str(spec, "name", SPEC_MAX_NAME, &j->name, e) < 0 ||
        spec_str(spec, "std_out", SPEC_MAX_PATH, &j->std_out, e) < 0 ||
        spec_str(spec, "std_err", SPEC_MAX_PATH, &j->std_err, e) < 0 ||
        spec_str(spec, "work_dir", SPEC_MAX_PATH, &j->work_dir, e) < 0 ||
        spec_str(spec, "qos", SPEC_MAX_NAME, &j->qos, e) < 0 ||
        spec_str(spec, "account", SPEC_MAX_NAME, &j->account, e) < 0 ||
        spec_str(spec, "nodelist", SPEC_MAX_PATH, &j->nodelist, e) < 0 ||
        spec_str(spec, "exclude", SPEC_MAX_PATH, &j->exclude, e) < 0 ||
        spec_str(spec, "gres", SPEC_MAX_NAME, &j->gres, e) < 0 ||
        spec_str(spec, "gpus", SPEC_MAX_NAME, &j->gpus, e) < 0 ||
        spec_str(spec, "reservation", SPEC_MAX_NAME, &j->reservation, e) < 0)
        return -1;
    if (j->work_dir != NULL && j->work_dir[0] != '/')
        return err_inval(e, "job work_dir \"%.200s\" is not an absolute path",
                         j->work_dir);
    if (j->gres != NULL && gres_parse(j->gres, &gl, e) < 0)
        return err_prefix(e, "job gres");
    if (j->gpus != NULL) {
        const char *c = strrchr(j->gpus, ':');
        const char *num = c ? c + 1 : j->gpus;
        if (*num == '\0' || strspn(num, "0123456789") != strlen(num))
            return err_inval(e, "job gpus \"%.64s\": expected N or TYPE:N",
                             j->gpus);
    }
    return 0;
}

/* The fields of helper verbs: --open-mode, --mail-type/--mail-user,
 * --get-user-env, --propagate, sbatch's host. */
static int parse_verbs_fields(json_t *spec, struct job *j, struct err *e)
{
    json_t *gue = json_object_get(spec, "get_user_env");
    char *mt = NULL;

    if (spec_str(spec, "open_mode", SPEC_MAX_NAME, &j->open_mode, e) < 0 ||
        spec_str(spec, "mail_type", SPEC_MAX_NAME, &mt, e) < 0 ||
        spec_str(spec, "mail_user", SPEC_MAX_NAME, &j->mail_user, e) < 0 ||
        spec_str(spec, "propagate", SPEC_MAX_NAME, &j->propagate, e) < 0 ||
        spec_str(spec, "submit_host", SPEC_MAX_NAME, &j->submit_host, e) < 0 ||
        spec_str(spec, "submit_dir", SPEC_MAX_PATH, &j->submit_dir, e) < 0)
        goto error;
    if (j->submit_dir != NULL && j->submit_dir[0] != '/') {
        err_inval(e, "job submit_dir \"%.200s\" is not an absolute path",
                  j->submit_dir);
        goto error;
    }
    if (j->open_mode != NULL && strcmp(j->open_mode, "append") != 0 &&
        strcmp(j->open_mode, "truncate") != 0) {
        err_inval(e, "job open_mode \"%.64s\": expected append or truncate",
                  j->open_mode);
        goto error;
    }
    if (mt != NULL && mail_type_parse(mt, &j->mail_type, e) < 0) {
        err_prefix(e, "job mail_type");
        goto error;
    }
    free(mt);
    if (json_is_true(gue))
        j->get_user_env = xstrdup("");
    else if (json_is_string(gue) && json_string_length(gue) < 64)
        j->get_user_env = xstrdup(json_string_value(gue));
    else if (gue != NULL && !json_is_null(gue) && !json_is_false(gue))
        return err_inval(e, "job get_user_env: expected true or \"[T][S|L]\"");
    return 0;
error:
    free(mt);
    return -1;
}

/* argv: at most SPEC_MAX_ARGS strings, each and all bounded. */
static int check_argv(json_t *argv, struct err *e)
{
    size_t i, total = 0;
    json_t *v;

    if (!json_is_array(argv))
        return err_inval(e, "job argv: expected an array of strings");
    if (json_array_size(argv) > SPEC_MAX_ARGS)
        return err_inval(e, "job argv has %zu arguments, the limit is %u",
                         json_array_size(argv), SPEC_MAX_ARGS);
    json_array_foreach(argv, i, v)
    {
        if (!json_is_string(v))
            return err_inval(e, "job argv[%zu]: expected a string", i);
        if (json_string_length(v) > SPEC_MAX_STRING)
            return err_inval(e, "job argv[%zu] is %zu bytes, the limit is %u",
                             i, json_string_length(v), SPEC_MAX_STRING);
        total += json_string_length(v) + 1;
    }
    if (total > SPEC_MAX_ARGV_BYTES)
        return err_inval(e, "job argv is %zu bytes, the limit is %u", total,
                         SPEC_MAX_ARGV_BYTES);
    return 0;
}

/* environment: NAME (no '=') to string, counted as "NAME=value". */
static int check_env(json_t *env, struct err *e)
{
    size_t total = 0;
    const char *key;
    json_t *v;

    if (!json_is_object(env))
        return err_inval(e, "job environment: expected an object of strings");
    if (json_object_size(env) > SPEC_MAX_ENV_VARS)
        return err_inval(e,
                         "job environment has %zu variables, the limit is %u",
                         json_object_size(env), SPEC_MAX_ENV_VARS);
    json_object_foreach(env, key, v)
    {
        size_t len;
        if (!json_is_string(v) || key[0] == '\0' || strchr(key, '='))
            return err_inval(e,
                             "job environment \"%.64s\": expected NAME "
                             "(no '=') with a string value",
                             key);
        len = strlen(key) + 1 + json_string_length(v);
        if (len > SPEC_MAX_STRING)
            return err_inval(e,
                             "job environment variable %.64s is %zu bytes, "
                             "the limit is %u",
                             key, len, SPEC_MAX_STRING);
        total += len + 1;
    }
    if (total > SPEC_MAX_ENV_BYTES)
        return err_inval(e, "job environment is %zu bytes, the limit is %u",
                         total, SPEC_MAX_ENV_BYTES);
    return 0;
}

/* "alloc": "salloc" or "srun" makes an allocation job (no script). */
static int parse_alloc(json_t *spec, struct job *j, struct err *e)
{
    json_t *v = json_object_get(spec, "alloc");

    j->alloc_kind = JOB_ALLOC_NONE;
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v) ||
        job_alloc_parse(json_string_value(v), &j->alloc_kind) < 0)
        return err_inval(e, "job alloc: expected \"salloc\" or \"srun\"");
    return 0;
}

/* The payload kept in the database only: script, argv, environment (an
 * allocation has no script: argv, when given, names its command). */
static int parse_payload(const struct conf *conf, json_t *spec, bool alloc,
                         json_t **payload, struct err *e)
{
    json_t *script = json_object_get(spec, "script");
    json_t *argv = json_object_get(spec, "argv");
    json_t *env = json_object_get(spec, "environment");

    if (alloc && script != NULL && !json_is_null(script))
        return err_inval(e, "job script: an allocation (alloc) has none");
    if (alloc)
        script = json_null();
    else if (!json_is_string(script))
        return err_inval(e, "job script: missing (a job needs a script)");
    else if (json_string_length(script) > conf->max_script_size)
        return err_inval(e,
                         "job script is %zu bytes, the limit is %u "
                         "(SchedulerParameters=max_script_size)",
                         json_string_length(script), conf->max_script_size);
    else if (strncmp(json_string_value(script), "#!", 2) != 0)
        return err_inval(e, "script has no interpreter line (#!...)");
    if (argv != NULL && !json_is_null(argv) && check_argv(argv, e) < 0)
        return -1;
    if (env != NULL && !json_is_null(env) && check_env(env, e) < 0)
        return -1;
    *payload = json_pack(
        "{s:O, s:o, s:o}", "script", script, "argv",
        json_is_array(argv) ? json_incref(argv) : json_array(), "environment",
        json_is_object(env) ? json_incref(env) : json_object());
    return 0;
}

static void set_identity(struct job *j, const struct auth_id *who)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    j->user_id = (uint32_t)who->uid;
    j->group_id = (uint32_t)who->gid;
    if (getpwuid_r(who->uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL) {
        j->user_name = xstrdup(pw.pw_name);
        if (j->work_dir == NULL)
            j->work_dir = xstrdup(pw.pw_dir);
    } else {
        /* a uid unknown here still runs: the node resolves it */
        j->user_name = xasprintf("%u", (unsigned)who->uid);
    }
    if (j->work_dir == NULL)
        j->work_dir = xstrdup("/");
}

static void default_name(struct job *j, json_t *payload)
{
    const char *a0 =
        json_string_value(json_array_get(json_object_get(payload, "argv"), 0));
    const char *slash;

    if (j->name != NULL)
        return;
    if (a0 == NULL || *a0 == '\0') {
        j->name = xstrdup(j->alloc_kind == JOB_ALLOC_NONE     ? "sbatch"
                          : j->alloc_kind == JOB_ALLOC_SALLOC ? "interactive"
                                                              : "srun");
        return;
    }
    slash = strrchr(a0, '/');
    j->name = xstrdup(slash ? slash + 1 : a0);
}

/* Time limit: the request's, else the partition's DefaultTime. */
static int parse_spec_time(const struct parts *ps, json_t *spec, struct job *j,
                           struct err *e)
{
    bool given;

    if (parse_time_limit(json_object_get(spec, "time_limit_s"),
                         &j->time_limit_s, &given, e) < 0)
        return -1;
    if (!given)
        j->time_limit_s = parts_get(ps, j->part)->default_time_s;
    return 0;
}

/* MaxTime: rejected under EnforcePartLimits, else held. */
static int check_time_limit(const struct conf *conf, const struct part *p,
                            struct job *j, struct err *e)
{
    char a[TIMEFMT_BUFLEN], b[TIMEFMT_BUFLEN];

    j->part_time_limit = false;
    if (j->time_limit_s <= p->max_time_s)
        return 0;
    if (conf->enforce_part_limits != CONF_ENFORCE_NO)
        return err_inval(
            e, "time limit %s exceeds the MaxTime %s of partition %s",
            timefmt_format(j->time_limit_s, a, sizeof(a)),
            timefmt_format(p->max_time_s, b, sizeof(b)), p->cf->name);
    j->part_time_limit = true;
    return 0;
}

/* --array, --dependency, --kill-on-invalid-dep. */
static int parse_array_dep(struct jobs *js, const struct conf *conf,
                           json_t *spec, struct job *j, struct err *e)
{
    json_t *kill = json_object_get(spec, "kill_on_invalid_dep");
    json_t *array = json_object_get(spec, "array");
    char *dep = NULL;
    int rc;

    if (array != NULL && !json_is_null(array) && conf->max_array_size == 0)
        return err_inval(e, "job arrays are disabled (MaxArraySize=0)");
    if (json_is_string(array) &&
        spec_len(array, "array", SPEC_MAX_ARRAY, e) < 0)
        return -1;
    if (jobarray_parse(spec, conf->max_array_size, j, e) < 0 ||
        spec_str(spec, "dependency", SPEC_MAX_PATH, &dep, e) < 0)
        return -1;
    rc = jobdep_set(js, j, dep, e);
    free(dep);
    if (rc < 0)
        return -1;
    if (kill != NULL && !json_is_null(kill) && !json_is_boolean(kill))
        return err_inval(e, "job kill_on_invalid_dep: expected true or false");
    j->kill_invalid_dep = json_is_boolean(kill)
                              ? json_is_true(kill)
                              : jobdep_kill_default(conf->scheduler_parameters);
    return 0;
}

/* --signal: warn_signal 1-64, warn_time_s 0-65535 (default 60, as
 * Slurm), warn_batch. */
static int parse_warn(json_t *spec, struct job *j, struct err *e)
{
    int64_t sig = 0, secs = 60;
    bool batch;

    if (spec_int(spec, "warn_signal", 1, 64, &sig, e) < 0 ||
        spec_int(spec, "warn_time_s", 0, 65535, &secs, e) < 0 ||
        spec_bool(spec, "warn_batch", &batch, e) < 0)
        return -1;
    j->warn_signal = (int)sig;
    j->warn_time_s = sig ? (uint32_t)secs : 0;
    j->warn_batch = sig && batch;
    return 0;
}

/* "nice" of o into *out (kept when absent): within +-PRIO_NICE_MAX, and
 * negative only from an operator or administrator, as in Slurm.  what
 * names the option in the message ("--nice", "Nice"). */
static int parse_nice(struct jobs *js, json_t *o, uid_t uid, const char *what,
                      int32_t *out, struct err *e)
{
    int64_t v = *out;

    if (spec_int(o, "nice", -PRIO_NICE_MAX, PRIO_NICE_MAX, &v, e) < 0)
        return -1;
    if (v < 0 && v != *out && !acct_is_operator(jobs_env(js)->acct, uid)) {
        errno = EPERM;
        return err_set(e,
                       "%s=%" PRId64 ": only an operator or administrator "
                       "may set a negative nice value",
                       what, v);
    }
    *out = (int32_t)v;
    return 0;
}

/* How admit judges a job (below).  ADMIT_OVERRIDE: an administrator's
 * update, held to no MaxTime, Min/MaxNodes or limits. */
#define ADMIT_ENTER 0x1u  /* the job enters its partition (DRAIN refuses) */
#define ADMIT_LIMITS 0x2u /* the limits of its QOS and associations */
#define ADMIT_OVERRIDE 0x4u

/*
 * May j, as it now stands (partition, time limit, nodes, resources,
 * user, account, QOS), be pending in its partition?  The one verdict of
 * submission and of JOB_UPDATE: the partition's state, MaxTime and
 * Min/MaxNodes (EnforcePartLimits), MaxMemPerNode and MaxMemPerCPU,
 * whether it can ever fit, the
 * association for user, account and partition, the QOS, the partition's
 * Allow and Deny lists and AllowGroups (jobacct_resolve), and with
 * ADMIT_LIMITS the QOS and association limits (jlimits_submit_check; the
 * job must not be charged).  ADMIT_OVERRIDE is an administrator's
 * update, which Slurm does not hold to the partition's or the
 * accounting's limits; access (who may use the partition) still counts.
 */
static int admit(struct jobs *js, struct job *j, unsigned how, struct err *e)
{
    const struct jobs_env *env = jobs_env(js);
    const struct part *p = parts_get(env->parts, j->part);

    if ((how & ADMIT_ENTER) && part_accepts(env->parts, j->part, e) < 0)
        return -1;
    if (how & ADMIT_OVERRIDE) {
        j->part_time_limit = false;
        j->part_node_limit = false;
    } else if (check_time_limit(env->conf, p, j, e) < 0 ||
               apply_node_limits(env->conf, p, j, e) < 0 ||
               check_mem_max(env->conf, j, e) < 0) {
        return -1;
    }
    if (jobspec_opts_check(env->conf, p, j, time(NULL), e) < 0 ||
        jobs_check_fit(env->conf, p, j, e) < 0 ||
        jobacct_resolve(env->acct, env->conf, j, e) < 0)
        return -1;
    if ((how & ADMIT_LIMITS) && !(how & ADMIT_OVERRIDE))
        return jlimits_submit_check(env->limits, j, e);
    return 0;
}

/* Build a pending job from spec; *payload gets the stored payload. */
static struct job *parse_spec(struct jobs *js, const struct conf *conf,
                              json_t *spec, const struct auth_id *who,
                              bool test_only, json_t **payload, struct err *e)
{
    struct job *j = xcalloc(1, sizeof(*j));
    const struct parts *ps = jobs_env(js)->parts;
    int64_t begin = 0;
    bool hold, requeue;
    time_t now = time(NULL);
    struct auth_id as = *who; /* --uid/--gid may change it */

    *payload = NULL;
    if (parse_alloc(spec, j, e) < 0 ||
        parse_payload(conf, spec, j->alloc_kind != JOB_ALLOC_NONE, payload, e) <
            0 ||
        resolve_partition(conf, spec, &j->part, e) < 0 ||
        parse_resources(spec, j, e) < 0 || parse_strings(spec, j, e) < 0 ||
        parse_verbs_fields(spec, j, e) < 0 || jobgpu_parse(spec, j, e) < 0 ||
        jobspec_opts_parse(spec, j, e) < 0 ||
        jobspec_opts_identity(js, spec, j, &as, e) < 0 ||
        spec_int(spec, "begin_time", 0, INT64_C(1) << 40, &begin, e) < 0 ||
        spec_bool(spec, "hold", &hold, e) < 0 ||
        spec_bool(spec, "requeue", &requeue, e) < 0 ||
        spec_bool(spec, "no_kill", &j->no_kill, e) < 0 ||
        parse_spec_time(ps, spec, j, e) < 0 || parse_warn(spec, j, e) < 0 ||
        parse_nice(js, spec, who->uid, "--nice", &j->nice, e) < 0 ||
        jobs_node_filter(conf, j->nodelist, j->exclude, &j->node_allowed, e) <
            0 ||
        parse_array_dep(js, conf, spec, j, e) < 0)
        goto error;
    if (j->alloc_kind != JOB_ALLOC_NONE && j->array_pending != NULL) {
        err_inval(e, "an allocation (salloc, srun) cannot be a job array");
        goto error;
    }
    set_identity(j, &as);
    apply_mem_default(conf, j);
    j->begin_time = (time_t)begin; /* the deadline is judged against it */
    if (admit(js, j, ADMIT_ENTER | (test_only ? 0 : ADMIT_LIMITS), e) < 0)
        goto error;
    /* --reservation: it must exist and admit the job's user and account */
    if (j->reservation != NULL &&
        resvs_job_access(jobs_env(js)->resv, j->reservation, j->user_name,
                         j->account, e) < 0)
        goto error;
    default_name(j, *payload);
    j->state = JOB_PENDING;
    if (!j->prio_fixed)
        j->priority = 1;
    j->cancel_uid = -1;
    j->submit_time = now;
    j->begin_time = (time_t)begin;
    /* eligible: now, at its begin time, or (held) when released */
    j->eligible_time = begin > now ? (time_t)begin : now;
    if (hold || j->part_time_limit || j->part_node_limit || j->dep.n > 0)
        j->eligible_time = 0; /* a dependency met at once: jobdep_track */
    j->held_user = hold;
    /* --requeue / --no-requeue, else JobRequeue (1 unless set to 0) */
    j->requeue = json_is_boolean(json_object_get(spec, "requeue"))
                     ? requeue
                     : conf->job_requeue;
    if (j->alloc_kind != JOB_ALLOC_NONE)
        j->requeue = false; /* its owner waits on it: never requeued */
    if (hold)
        job_set_reason(j, "JobHeldUser");
    else if (j->part_time_limit)
        job_set_reason(j, "PartitionTimeLimit");
    else if (j->part_node_limit)
        job_set_reason(j, "PartitionNodeLimit");
    else if (begin > now)
        job_set_reason(j, "BeginTime");
    return j;
error:
    json_decref(*payload);
    *payload = NULL;
    job_free(j);
    return NULL;
}

/* MaxJobCount, counting each task of an array as one job, as Slurm
 * does (the pending tasks of an array share one record here). */
static int check_job_count(struct jobs *js, const struct job *j, struct err *e)
{
    uint32_t max = jobs_env(js)->conf->max_job_count;
    size_t tasks = j->array_pending ? j->array_pending->count : 1, have;

    if (tasks > max)
        return err_inval(e,
                         "an array of %zu tasks can never fit MaxJobCount "
                         "(%u): each task counts as one job",
                         tasks, max);
    have = jobs_active_tasks(js);
    if (have + tasks <= max)
        return 0;
    errno = EAGAIN;
    if (tasks == 1)
        return err_set(e, "MaxJobCount (%u) reached: try again later", max);
    return err_set(e,
                   "MaxJobCount (%u) reached: %zu jobs are active and the "
                   "array adds %zu: try again later",
                   max, have, tasks);
}

struct job *jobs_submit_test(struct jobs *js, json_t *spec,
                             const struct auth_id *who, struct err *e)
{
    json_t *payload = NULL;
    struct job *j;

    if (!json_is_object(spec)) {
        err_inval(e, "SUBMIT: expected {\"job\": {...}}");
        return NULL;
    }
    j = parse_spec(js, jobs_env(js)->conf, spec, who, true, &payload, e);
    json_decref(payload);
    return j;
}

struct job *jobs_submit_parse(struct jobs *js, json_t *spec,
                              const struct auth_id *who, char **payload,
                              struct err *e)
{
    json_t *pl = NULL;
    struct job *j;
    bool test_only;

    *payload = NULL;
    if (!json_is_object(spec)) {
        err_inval(e, "SUBMIT: expected {\"job\": {...}}");
        return NULL;
    }
    if (spec_bool(spec, "test_only", &test_only, e) < 0)
        return NULL;
    if (test_only) {
        err_inval(e, "SUBMIT: a test_only job is for jobs_submit_test");
        return NULL;
    }
    j = parse_spec(js, jobs_env(js)->conf, spec, who, false, &pl, e);
    if (j == NULL)
        return NULL;
    if (check_job_count(js, j, e) < 0) {
        json_decref(pl);
        job_free(j);
        return NULL;
    }
    *payload = json_dumps(pl, JSON_COMPACT);
    json_decref(pl);
    if (*payload == NULL)
        fatalx("out of memory encoding a job payload");
    return j;
}

int jobs_submit_insert(struct jobs *js, struct job *j, const char *payload,
                       json_t **reply, struct err *e)
{
    const struct jobs_env *env = jobs_env(js);

    if (jobs_insert_new(js, j, payload, e) < 0) /* frees j on failure */
        return -1;
    log_info("job=%" PRIu64 " state=PENDING user=%s partition=%s cpus=%u "
             "gpus_per_node=%u%s%s",
             j->id, j->user_name, env->conf->parts[j->part].name,
             j->cpus_per_node * j->nodes, j->gpus_per_node,
             j->alloc_kind ? " alloc=" : "",
             j->alloc_kind ? job_alloc_name(j->alloc_kind) : "");
    if (j->dep.n > 0)
        jobdep_track(js, j, j->submit_time);
    if (!j->held_user && !j->part_time_limit && !j->part_node_limit)
        loop_want_pass(env->loop);
    *reply = json_pack("{s:I}", "job_id", (json_int_t)j->id);
    return 0;
}

int jobs_submit(struct jobs *js, json_t *spec, const struct auth_id *who,
                json_t **reply, struct err *e)
{
    char *payload;
    struct job *j = jobs_submit_parse(js, spec, who, &payload, e);
    int rc;

    if (j == NULL)
        return -1;
    rc = jobs_submit_insert(js, j, payload, reply, e);
    free(payload);
    return rc;
}

/* ---- JOB_UPDATE ------------------------------------------------------- */

/* TimeLimit=: users may only lower it; administrators may raise it, but
 * not past the partition's MaxTime.  A running job's end moves with it. */
static int update_time(struct jobs *js, struct job *j, bool admin, json_t *v,
                       char *what, size_t len, struct err *e)
{
    const struct conf_part *p = &jobs_env(js)->conf->parts[j->part];
    int64_t t, max = parts_max_time(jobs_env(js)->parts, j->part);
    char a[TIMEFMT_BUFLEN], b[TIMEFMT_BUFLEN];
    bool given;

    if (parse_time_limit(v, &t, &given, e) < 0 || !given)
        return given ? -1 : 0;
    if (!admin && t > j->time_limit_s) {
        errno = EPERM;
        return err_set(e,
                       "Access/permission denied: only an administrator "
                       "may raise a time limit (now %s)",
                       timefmt_format(j->time_limit_s, a, sizeof(a)));
    }
    if (t > max && t > j->time_limit_s)
        return err_inval(e,
                         "time limit %s exceeds the MaxTime %s of partition %s",
                         timefmt_format(t, a, sizeof(a)),
                         timefmt_format(max, b, sizeof(b)), p->name);
    snprintf(what, len, "TimeLimit=%s (was %s)",
             timefmt_format(t, a, sizeof(a)),
             timefmt_format(j->time_limit_s, b, sizeof(b)));
    j->time_limit_s = t;
    if (j->part_time_limit && t <= max) {
        j->part_time_limit = false;
        if (strcmp(job_reason(j), "PartitionTimeLimit") == 0)
            job_set_reason(j, NULL);
    }
    return 0;
}

/* Partition=: the new partition's name into *part (the job's own when
 * not given); only a pending job may move. */
static int update_part_name(struct jobs *js, const struct job *j, json_t *set,
                            size_t *part, struct err *e)
{
    *part = j->part;
    if (json_object_get(set, "partition") == NULL)
        return 0;
    if (j->state != JOB_PENDING) {
        errno = EBUSY;
        return err_set(e, "Job is no longer pending execution: its partition "
                          "cannot change");
    }
    return resolve_partition(jobs_env(js)->conf, set, part, e);
}

/* A pending job whose partition or time limit changed is judged again as
 * a submission with these values would be (admit), without its own
 * limits charge; the caller charges it again, on the new chain or, on
 * failure, on the old one (jlimits_job_added). */
static int readmit(struct jobs *js, struct job *j, bool admin, bool moved,
                   struct err *e)
{
    unsigned how =
        ADMIT_LIMITS | (moved ? ADMIT_ENTER : 0) | (admin ? ADMIT_OVERRIDE : 0);

    jlimits_job_ended(jobs_env(js)->limits, j);
    return admit(js, j, how, e);
}

/* After readmit: the partition's hold (EnforcePartLimits=NO) as reason,
 * or none, and eligible if nothing else holds it. */
static int readmitted(struct jobs *js, struct job *j, struct err *e)
{
    const char *r = job_reason(j);

    if (j->held_user || j->held_admin)
        return 0;
    if (j->part_time_limit)
        job_set_reason(j, "PartitionTimeLimit");
    else if (j->part_node_limit)
        job_set_reason(j, "PartitionNodeLimit");
    else if (strcmp(r, "PartitionTimeLimit") == 0 ||
             strcmp(r, "PartitionNodeLimit") == 0)
        job_set_reason(j, NULL);
    return jobs_eligible(js, j, time(NULL), e);
}

/* Dependency=: a new expression ("" removes it), judged at once.  Done
 * last, so that nothing before it can fail after it. */
static int update_dependency(struct jobs *js, struct job *j, json_t *set,
                             struct err *e)
{
    json_t *v = json_object_get(set, "dependency");

    if (v == NULL)
        return 0;
    if (!json_is_null(v) && !json_is_string(v))
        return err_inval(e, "job dependency: expected a string");
    if (json_is_string(v) && spec_len(v, "dependency", SPEC_MAX_PATH, e) < 0)
        return -1;
    if (j->state != JOB_PENDING) {
        errno = EBUSY;
        return err_set(e, "Job is no longer pending execution: its "
                          "dependency cannot change");
    }
    if (jobdep_set(js, j, json_string_value(v), e) < 0)
        return -1;
    arrayset_clear(j->dep_ready);
    free(j->dep_ready);
    j->dep_ready = NULL;
    if (j->dep.n > 0) {
        jobdep_track(js, j, time(NULL));
    } else {
        if (strncmp(job_reason(j), "Dependency", 10) == 0)
            job_set_reason(j, NULL);
        j->dep_state = DEP_MET;
        return jobs_eligible(js, j, time(NULL), e);
    }
    return 0;
}

/* Undo what a failed update changed (a failed update changes nothing). */
static void update_undo(struct job *j, const struct job *saved)
{
    j->time_limit_s = saved->time_limit_s;
    j->part = saved->part;
    j->part_time_limit = saved->part_time_limit;
    j->part_node_limit = saved->part_node_limit;
    if (j->account != saved->account) {
        free(j->account);
        j->account = saved->account;
    }
    if (j->qos != saved->qos) {
        free(j->qos);
        j->qos = saved->qos;
    }
}

int jobs_update(struct jobs *js, struct job *j, uid_t uid, json_t *set,
                struct err *e)
{
    const struct jobs_env *env = jobs_env(js);
    bool admin = acct_is_operator(env->acct, uid), judged = false;
    struct job saved = *j;
    char *name = NULL, *comment = NULL, what[128] = "", detail[192];
    int64_t prio = -1;
    int32_t nice = j->nice;
    size_t part;

    if (!jobs_may_act(js, j, uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied");
    }
    if (job_state_final(j->state)) {
        errno = EALREADY;
        return err_set(e, "Job/step already completing or completed");
    }
    if (!json_is_object(set))
        return err_inval(e, "JOB_UPDATE: expected \"set\": {...}");
    if (spec_str(set, "name", SPEC_MAX_NAME, &name, e) < 0 ||
        spec_str(set, "comment", SPEC_MAX_NAME, &comment, e) < 0 ||
        spec_int(set, "priority", 0, UINT32_MAX, &prio, e) < 0 ||
        parse_nice(js, set, uid, "Nice", &nice, e) < 0)
        goto error;
    if (prio >= 0 && !acct_is_administrator(env->acct, uid)) {
        errno = EPERM;
        err_set(e, "Access/permission denied: only an administrator may set "
                   "a priority");
        goto error;
    }
    if (update_part_name(js, j, set, &part, e) < 0)
        goto error;
    j->part = part; /* the time limit is judged against the new partition */
    if (update_time(js, j, admin, json_object_get(set, "time_limit_s"), what,
                    sizeof(what), e) < 0)
        goto error;
    judged = j->state == JOB_PENDING &&
             (j->part != saved.part || j->time_limit_s != saved.time_limit_s);
    if ((judged && readmit(js, j, admin, j->part != saved.part, e) < 0) ||
        update_dependency(js, j, set, e) < 0)
        goto error;
    if (judged) {
        jlimits_job_added(env->limits, j);
        if (readmitted(js, j, e) < 0) {
            free(name);
            free(comment);
            return -1; /* the database failed: the move stands */
        }
    }
    if (name != NULL) {
        free(j->name);
        j->name = name;
    }
    if (comment != NULL) { /* "" clears it, as scontrol's Comment= */
        free(j->opt.comment);
        j->opt.comment = comment[0] ? comment : NULL;
        if (comment[0] == '\0')
            free(comment);
    }
    if (prio >= 0) {
        j->priority = (uint32_t)prio;
        j->prio_fixed = true;
    }
    j->nice = nice;
    loop_want_pass(env->loop);
    if (j->part != saved.part)
        log_info("job=%" PRIu64 " partition=%s (was %s) by uid=%u", j->id,
                 env->conf->parts[j->part].name,
                 env->conf->parts[saved.part].name, (unsigned)uid);
    snprintf(detail, sizeof(detail), "%s%sby uid %u", what, what[0] ? " " : "",
             (unsigned)uid);
    return jobs_save_event(js, j, "update", detail, e);
error:
    update_undo(j, &saved);
    if (judged)
        jlimits_job_added(env->limits, j); /* back on its old chain */
    free(name);
    free(comment);
    return -1;
}
