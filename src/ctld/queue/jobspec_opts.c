/*
 * Submission of the job options Slurm's sbatch has beyond the resources:
 * comment, wckey, deadline, time-min, tmp, mincpus, exclusive, the node
 * shape, constraint, ntasks-per-gpu, priority, uid/gid and the binding
 * strings kept for the nodes.  Everything here is checked before the job
 * exists; a failure leaves nothing behind but what job_free frees.
 */
#include "ctld/queue/jobspec_opts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/job/jobopts.h"
#include "ctld/queue/jobs.h"
#include "ctld/queue/specval.h"
#include "sched/features.h"

#define OPT_MAX_TEXT 1024 /* comment, wckey, the binding strings */

static int get_u32(json_t *spec, const char *key, int64_t min, int64_t max,
                   uint32_t *out, struct err *e)
{
    int64_t v = 0;

    if (spec_int(spec, key, min, max, &v, e) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_strings(json_t *spec, struct job_opts *o, struct err *e)
{
    if (spec_str(spec, "comment", OPT_MAX_TEXT, &o->comment, e) < 0 ||
        spec_str(spec, "wckey", OPT_MAX_TEXT, &o->wckey, e) < 0 ||
        spec_str(spec, "constraint", FEATURES_MAX_LEN, &o->constraint, e) < 0 ||
        spec_str(spec, "gres_flags", OPT_MAX_TEXT, &o->gres_flags, e) < 0 ||
        spec_str(spec, "gpu_bind", OPT_MAX_TEXT, &o->gpu_bind, e) < 0 ||
        spec_str(spec, "cpu_bind", OPT_MAX_TEXT, &o->cpu_bind, e) < 0 ||
        spec_str(spec, "hint", OPT_MAX_TEXT, &o->hint, e) < 0 ||
        spec_str(spec, "distribution", OPT_MAX_TEXT, &o->distribution, e) < 0)
        return -1;
    if (o->gres_flags != NULL && strcmp(o->gres_flags, "enforce-binding") &&
        strcmp(o->gres_flags, "disable-binding"))
        return err_inval(e,
                         "job gres_flags \"%.64s\": expected "
                         "\"enforce-binding\" or \"disable-binding\"",
                         o->gres_flags);
    if (o->constraint != NULL && o->constraint[0] == '\0') {
        free(o->constraint);
        o->constraint = NULL;
    }
    return 0;
}

static int parse_exclusive(json_t *spec, struct job_opts *o, struct err *e)
{
    json_t *v = json_object_get(spec, "exclusive");

    if (!spec_given(spec, "exclusive"))
        return 0;
    if (json_is_true(v)) {
        o->exclusive = JOB_EXCL_NODE;
        return 0;
    }
    if (json_is_false(v))
        return 0;
    if (!json_is_string(v) ||
        jobopts_excl_parse(json_string_value(v), &o->exclusive) < 0)
        return err_inval(e, "job exclusive: expected \"node\", \"user\" or "
                            "\"mcs\"");
    return 0;
}

/* --ntasks-per-gpu=N without -n: N tasks for each GPU of the job. */
static int tasks_per_gpu(json_t *spec, struct job *j, struct err *e)
{
    uint64_t gpus = (uint64_t)j->gpus_per_node * j->nodes, nt;

    if (j->opt.ntasks_per_gpu == 0 || spec_given(spec, "ntasks"))
        return 0;
    if (gpus == 0)
        return err_inval(e, "job ntasks_per_gpu: the job asks for no GPUs "
                            "(--gpus, --gpus-per-node or --gres=gpu)");
    nt = gpus * j->opt.ntasks_per_gpu;
    if (nt > 65535)
        return err_inval(e,
                         "job ntasks_per_gpu: %" PRIu64 " tasks is more "
                         "than a job may ask for",
                         nt);
    j->ntasks = (uint32_t)nt;
    j->ntasks_set = true;
    nt = ((uint64_t)j->cpus_per_task * nt + j->nodes - 1) / j->nodes;
    if (nt > j->cpus_per_node)
        j->cpus_per_node = (uint32_t)nt;
    return 0;
}

int jobspec_opts_parse(json_t *spec, struct job *j, struct err *e)
{
    struct job_opts *o = &j->opt;
    int64_t deadline = 0;

    if (parse_strings(spec, o, e) < 0 || parse_exclusive(spec, o, e) < 0 ||
        spec_int(spec, "deadline", 1, INT64_C(1) << 40, &deadline, e) < 0 ||
        spec_int(spec, "time_min_s", 1, JOBS_TIME_LIMIT_MAX_S, &o->time_min_s,
                 e) < 0 ||
        spec_int(spec, "tmp_mib", 0, INT64_C(1) << 40, (int64_t *)&o->tmp_mib,
                 e) < 0 ||
        get_u32(spec, "mincpus", 0, 65535, &o->mincpus, e) < 0 ||
        spec_bool(spec, "oversubscribe", &o->oversubscribe, e) < 0 ||
        get_u32(spec, "sockets_per_node", 0, 65535, &o->sockets_per_node, e) <
            0 ||
        get_u32(spec, "cores_per_socket", 0, 65535, &o->cores_per_socket, e) <
            0 ||
        get_u32(spec, "threads_per_core", 0, 65535, &o->threads_per_core, e) <
            0 ||
        get_u32(spec, "ntasks_per_gpu", 0, 65535, &o->ntasks_per_gpu, e) < 0 ||
        spec_bool(spec, "spread_job", &o->spread_job, e) < 0 ||
        spec_bool(spec, "use_min_nodes", &o->use_min_nodes, e) < 0)
        return -1;
    o->deadline = (time_t)deadline;
    if (o->mincpus > j->cpus_per_node)
        j->cpus_per_node = o->mincpus; /* Slurm: at least this many */
    return tasks_per_gpu(spec, j, e);
}

/* "priority": an integer, or "TOP" for the highest there is. */
static int parse_priority(json_t *spec, int64_t *prio, struct err *e)
{
    json_t *v = json_object_get(spec, "priority");

    *prio = -1;
    if (!spec_given(spec, "priority"))
        return 0;
    if (json_is_string(v) && strcasecmp(json_string_value(v), "TOP") == 0) {
        *prio = UINT32_MAX - 1;
        return 0;
    }
    return spec_int(spec, "priority", 0, UINT32_MAX - 1, prio, e);
}

int jobspec_opts_identity(struct jobs *js, json_t *spec, struct job *j,
                          struct auth_id *who, struct err *e)
{
    const struct acct *acct = jobs_env(js)->acct;
    int64_t prio, uid = -1, gid = -1;
    bool root = who->uid == 0 || who->uid == geteuid();

    if (parse_priority(spec, &prio, e) < 0 ||
        spec_int(spec, "uid", 0, UINT32_MAX - 1, &uid, e) < 0 ||
        spec_int(spec, "gid", 0, UINT32_MAX - 1, &gid, e) < 0)
        return -1;
    if (prio >= 0 && !acct_is_operator(acct, who->uid)) {
        errno = EPERM;
        return err_set(e, "Access/permission denied: only an operator or "
                          "administrator may set --priority");
    }
    if ((uid >= 0 || gid >= 0) && !root) {
        errno = EPERM;
        return err_set(e, "Access/permission denied: only root or "
                          "SlurmUser may submit with --uid or --gid");
    }
    if (prio >= 0) {
        j->priority = (uint32_t)prio;
        j->prio_fixed = true;
    }
    if (uid >= 0)
        who->uid = (uid_t)uid;
    if (gid >= 0)
        who->gid = (gid_t)gid;
    return 0;
}

/* The nodes of p that j could use, by their features (into feats). */
static size_t usable_nodes(const struct conf *conf, const struct part *p,
                           const struct job *j, const char **feats)
{
    size_t m = 0;

    for (size_t i = 0; i < p->n_nodes; i++) {
        size_t idx = p->node_idx[i];
        if ((j->node_allowed != NULL && !j->node_allowed[idx]) ||
            (j->opt.node_ok != NULL && !j->opt.node_ok[idx]))
            continue;
        feats[m++] = conf->nodes[idx].features;
    }
    return m;
}

/* Why no node of p meets the per-node needs: the first node's reason. */
static int node_needs_error(const struct conf *conf, const struct part *p,
                            const struct job *j, struct err *e)
{
    char why[256] = "";

    for (size_t i = 0; i < p->n_nodes && why[0] == '\0'; i++)
        jobopts_node_ok(&j->opt, &conf->nodes[p->node_idx[i]], why,
                        sizeof(why));
    if (j->opt.feat != NULL && strstr(why, "constraint") != NULL)
        return err_inval(e,
                         "Invalid feature specification: no node of "
                         "partition %s matches constraint \"%s\"",
                         p->cf->name, j->opt.constraint);
    return err_inval(e,
                     "Requested node configuration is not available: no "
                     "node of partition %s has what the job asks for (%s)",
                     p->cf->name, why);
}

static int check_nodes(const struct conf *conf, const struct part *p,
                       struct job *j, struct err *e)
{
    const char **feats = xcalloc(p->n_nodes + 1, sizeof(*feats));
    size_t *pick = xcalloc(j->nodes, sizeof(*pick));
    size_t m = usable_nodes(conf, p, j, feats);
    uint32_t need = features_min_nodes(j->opt.feat);
    bool ok =
        m >= j->nodes && features_pick(j->opt.feat, feats, m, j->nodes, pick);

    free(pick);
    free(feats);
    if (need > j->nodes)
        return err_inval(e,
                         "Invalid feature specification: constraint \"%s\" "
                         "needs %u nodes but the job asks for %u (-N)",
                         j->opt.constraint, need, j->nodes);
    if (m == 0)
        return node_needs_error(conf, p, j, e);
    if (!ok && j->opt.feat != NULL)
        return err_inval(e,
                         "Invalid feature specification: no %u node%s of "
                         "partition %s together satisfy constraint \"%s\"",
                         j->nodes, j->nodes == 1 ? "" : "s", p->cf->name,
                         j->opt.constraint);
    return 0; /* too few nodes at all: jobs_check_fit says so */
}

int jobspec_opts_check(const struct conf *conf, const struct part *p,
                       struct job *j, time_t now, struct err *e)
{
    char a[TIMEFMT_BUFLEN], b[TIMEFMT_BUFLEN];

    if (j->opt.time_min_s > 0 && j->time_limit_s != TIMEFMT_INFINITE &&
        j->opt.time_min_s > j->time_limit_s)
        return err_inval(e, "job time_min_s %s exceeds its time limit %s",
                         timefmt_format(j->opt.time_min_s, a, sizeof(a)),
                         timefmt_format(j->time_limit_s, b, sizeof(b)));
    if (j->opt.deadline != 0 && j->opt.deadline <= now)
        return err_inval(e, "job deadline: %" PRId64 " has already passed",
                         (int64_t)j->opt.deadline);
    if (j->opt.deadline != 0 && j->begin_time > j->opt.deadline)
        return err_inval(e, "Incompatible begin and deadline time "
                            "specification");
    if (jobopts_resolve(&j->opt, conf, e) < 0)
        return -1;
    return check_nodes(conf, p, j, e);
}

bool jobspec_opts_deadline(struct jobs *js, struct job *j, time_t now)
{
    int64_t need = j->opt.time_min_s > 0 ? j->opt.time_min_s : j->time_limit_s;
    struct err e;

    if (j->state != JOB_PENDING || j->opt.deadline == 0)
        return false;
    if (need == TIMEFMT_INFINITE || need < 0)
        need = 0; /* no limit: only a deadline passed ends it */
    if (now + need <= j->opt.deadline)
        return false;
    log_info("job=%" PRIu64 " cannot end by its deadline %" PRId64
             ": state=DEADLINE",
             j->id, (int64_t)j->opt.deadline);
    if (jobs_fail(js, j, JOB_DEADLINE, "DeadLine", now, &e) < 0)
        log_warnx("job=%" PRIu64 " deadline not saved: %s", j->id, e.text);
    return true;
}
