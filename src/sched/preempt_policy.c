/*
 * The preemption policy (preempt_policy.h): PreemptType, the victims'
 * PreemptMode, exempt and grace times, and what a chosen plan does to the
 * model — the rules the controller and the simulator share.
 */
#include "sched/preempt_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "common/xalloc.h"
#include "sched/select.h"

int preempt_ckpt_exempt_max(const char *params, int64_t *out, struct err *e)
{
    static const char key[] = "exempt_until_checkpoint_max=";
    const char *v = params;
    char buf[64];
    size_t len;

    *out = -1;
    while (v != NULL && *v != '\0' && strncasecmp(v, key, sizeof(key) - 1))
        v = (v = strchr(v, ',')) ? v + 1 : NULL;
    if (v == NULL || *v == '\0')
        return 0;
    v += sizeof(key) - 1;
    len = strcspn(v, ",");
    snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
    if (len == 0 || len >= sizeof(buf) || timefmt_parse(buf, out, e) < 0) {
        *out = -1;
        errno = EINVAL;
        return err_set(e,
                       "PreemptParameters=exempt_until_checkpoint_max=%.32s: "
                       "expected a time (e.g. 1:00:00) or INFINITE",
                       buf);
    }
    return 0;
}

int sched_preempt_conf_init(struct sched_preempt_conf *pc,
                            const struct conf *conf, struct err *e)
{
    struct err e2;
    int rc = 0;

    memset(pc, 0, sizeof(*pc));
    pc->type = conf->preempt_type;
    pc->exempt_time_s = conf->preempt_exempt_time_s;
    if (sched_preempt_params_parse(conf->preempt_parameters, &pc->params, e) <
        0) {
        sched_preempt_params_parse("", &pc->params, &e2);
        rc = -1;
    }
    pc->suspend_gpu_jobs =
        conf_preempt_param(conf->preempt_parameters, "suspend_gpu_jobs");
    if (preempt_ckpt_exempt_max(conf->preempt_parameters,
                                &pc->ckpt_exempt_max_s, rc < 0 ? &e2 : e) < 0) {
        pc->ckpt_exempt_max_s = -1;
        rc = -1;
    }
    if (rc < 0)
        errno = EINVAL;
    return rc;
}

enum conf_preempt_mode sched_preempt_mode(const struct sched_preempt_job *v)
{
    if (v->qos != NULL && v->qos->mode_set)
        return v->qos->mode;
    return v->part_mode;
}

enum conf_preempt_mode sched_preempt_action(const struct sched_preempt_conf *pc,
                                            const struct sched_preempt_job *v)
{
    enum conf_preempt_mode m = sched_preempt_mode(v);

    if (m == CONF_PREEMPT_MODE_SUSPEND && v->gpus && !pc->suspend_gpu_jobs)
        m = CONF_PREEMPT_MODE_REQUEUE;
    if (m == CONF_PREEMPT_MODE_REQUEUE && !v->requeue)
        m = CONF_PREEMPT_MODE_CANCEL;
    return m;
}

bool sched_preempt_may(const struct sched_preempt_conf *pc,
                       const struct sched_preempt_job *pj,
                       const struct sched_preempt_job *v)
{
    if (sched_preempt_mode(v) == CONF_PREEMPT_MODE_OFF)
        return false;
    switch (pc->type) {
    case CONF_PREEMPT_PARTITION_PRIO:
        return v->tier < pj->tier;
    case CONF_PREEMPT_QOS:
        if (pj->qos == NULL || v->qos_name == NULL)
            return false;
        for (size_t i = 0; i < pj->qos->npreempt; i++)
            if (strcmp(pj->qos->preempt[i], v->qos_name) == 0)
                return true;
        return false;
    case CONF_PREEMPT_NONE:
        break;
    }
    return false;
}

time_t sched_preempt_exempt_until(const struct sched_preempt_conf *pc,
                                  const struct sched_preempt_job *v)
{
    const struct sched_preempt_qos *q = v->qos;
    int64_t s = pc->exempt_time_s, cap;

    if (q != NULL && q->exempt_time_s >= 0)
        s = q->exempt_time_s;
    if (q != NULL && q->exempt_until_checkpoint && v->last_checkpoint == 0) {
        cap = pc->ckpt_exempt_max_s;
        if (cap < 0)
            cap = s <= 0 ? PREEMPT_CKPT_EXEMPT_MIN_S
                  : s >= INT64_MAX / PREEMPT_CKPT_EXEMPT_FACTOR
                      ? TIMEFMT_INFINITE
                      : s * PREEMPT_CKPT_EXEMPT_FACTOR;
        if (cap >= PREEMPT_EXEMPT_FOREVER_S)
            return (time_t)INT64_MAX;
        return v->start_time + (time_t)cap;
    }
    return s > 0 ? v->start_time + (time_t)s : 0;
}

uint32_t sched_preempt_grace_s(const struct sched_preempt_job *v)
{
    if (v->qos != NULL && v->qos->grace_time_s > 0)
        return (uint32_t)v->qos->grace_time_s;
    return v->part_grace_s;
}

/* ---- a plan carried out on the model ------------------------------------ */

void sched_preempt_held(const struct sched_victim *v,
                        const struct sched_preempt_plan *plan,
                        struct sched_held **out, size_t *n)
{
    for (size_t k = 0; k < v->nnodes; k++) {
        bool on = false;
        for (size_t i = 0; i < plan->nnodes; i++)
            on |= plan->nodes[i] == v->nodes[k];
        if (!on)
            continue;
        *out = xreallocarray(*out, *n + 1, sizeof(**out));
        struct sched_held *r = &(*out)[(*n)++];
        /* a suspended victim frees its CPUs only */
        *r =
            (struct sched_held){.node = v->nodes[k],
                                .cpus = v->cpus_per_node,
                                .mem_mib = v->suspend ? 0 : v->mem_per_node_mib,
                                .ngpus = v->suspend ? 0 : v->gpus_per_node};
        if (r->ngpus > 0) {
            r->gpus = xcalloc(r->ngpus, sizeof(*r->gpus));
            memcpy(r->gpus, v->gpus + k * r->ngpus,
                   r->ngpus * sizeof(*r->gpus));
        }
    }
}

void sched_held_clear(struct sched_held *h)
{
    free(h->gpus);
    h->gpus = NULL;
    h->ngpus = 0;
}

void sched_held_mark(struct sched_node *n, const struct sched_held *h)
{
    n->cpus_alloc += h->cpus;
    n->mem_alloc_mib += h->mem_mib;
    for (uint32_t g = 0; g < h->ngpus; g++)
        if (h->gpus[g] < n->ngpus)
            n->gpu_used[h->gpus[g] / 64] |= UINT64_C(1) << (h->gpus[g] % 64);
}

void sched_preempt_claim(struct sched_cluster *c, const struct sched_job *j,
                         const struct sched_victim *vs,
                         const struct sched_preempt_plan *plan)
{
    for (size_t i = 0; i < plan->nvictims; i++) {
        const struct sched_victim *v = &vs[plan->victims[i]];
        for (size_t k = 0; k < v->nnodes; k++) {
            struct sched_node *n = &c->nodes[v->nodes[k]];
            n->cpus_alloc -= n->cpus_alloc < v->cpus_per_node
                                 ? n->cpus_alloc
                                 : v->cpus_per_node;
            n->mem_alloc_mib -= n->mem_alloc_mib < v->mem_per_node_mib
                                    ? n->mem_alloc_mib
                                    : v->mem_per_node_mib;
            for (uint32_t g = 0; g < v->gpus_per_node; g++) {
                uint32_t pos = v->gpus[k * v->gpus_per_node + g];
                if (pos < n->ngpus)
                    n->gpu_used[pos / 64] &= ~(UINT64_C(1) << (pos % 64));
            }
        }
    }
    for (size_t k = 0; k < plan->nnodes; k++) {
        struct sched_node *n = &c->nodes[plan->nodes[k]];
        uint32_t got = 0;
        n->cpus_alloc += j->cpus_per_node;
        n->mem_alloc_mib += j->mem_per_node_mib;
        for (uint32_t pos = 0; got < j->gpus_per_node && pos < n->ngpus;
             pos++) {
            uint64_t bit = UINT64_C(1) << (pos % 64);
            if ((n->gpu_used[pos / 64] & bit) ||
                !select_gpu_type_ok(n, pos, j->gpu_type))
                continue;
            n->gpu_used[pos / 64] |= bit;
            got++;
        }
    }
}
