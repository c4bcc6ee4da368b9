/*
 * The priority settings of a configuration (prio_setup.h): weights,
 * flags, periods, per-partition billing weights, TRES and job factors.
 */
#include "sched/prio_setup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

static int weights(struct prio_setup *ps, const struct conf *cf, struct err *e)
{
    ps->pc = (struct prio_conf){
        .multifactor = cf->priority_type == CONF_PRIORITY_MULTIFACTOR,
        .weight = {cf->priority_weight_age, cf->priority_weight_fairshare,
                   cf->priority_weight_job_size, cf->priority_weight_partition,
                   cf->priority_weight_qos},
        .max_age_s = cf->priority_max_age_s > 0 &&
                             cf->priority_max_age_s != TIMEFMT_INFINITE
                         ? cf->priority_max_age_s
                         : PRIO_SETUP_MAX_AGE_S,
        .favor_small = cf->priority_favor_small,
    };
    if (prio_flags_parse(cf->priority_flags, &ps->pc.flags, e) < 0)
        return err_prefix(e, "PriorityFlags");
    if (prio_tres_weights_parse(cf->priority_weight_tres, ps->pc.weight_tres,
                                e) < 0)
        return err_prefix(e, "PriorityWeightTRES");
    ps->fair_tree = !(ps->pc.flags & PRIO_F_NO_FAIR_TREE);
    ps->max_tres = ps->pc.flags & PRIO_F_MAX_TRES;
    ps->calc_period_s = cf->priority_calc_period_s > 0 &&
                                cf->priority_calc_period_s != TIMEFMT_INFINITE
                            ? cf->priority_calc_period_s
                            : PRIO_SETUP_CALC_PERIOD_S;
    ps->half_life_s = cf->priority_decay_half_life_s == TIMEFMT_INFINITE
                          ? 0
                          : cf->priority_decay_half_life_s;
    ps->reset = (enum fs_reset)cf->priority_usage_reset_period;
    return 0;
}

static int parts(struct prio_setup *ps, const struct conf *cf, struct err *e)
{
    size_t np = cf->n_parts ? cf->n_parts : 1;

    ps->nparts = cf->n_parts;
    ps->billing = xcalloc(np, sizeof(*ps->billing));
    ps->part_tres = xcalloc(np, sizeof(*ps->part_tres));
    ps->part_factor = xcalloc(np, sizeof(*ps->part_factor));
    for (size_t i = 0; i < cf->n_parts; i++) {
        const struct conf_part *cp = &cf->parts[i];
        if (prio_tres_weights_parse(cp->tres_billing_weights, ps->billing[i],
                                    e) < 0)
            return err_prefix(e, "PartitionName=%s TRESBillingWeights",
                              cp->name);
        ps->part_factor[i] = cp->priority_job_factor;
        if (cp->priority_job_factor > ps->norm.max_part_factor)
            ps->norm.max_part_factor = cp->priority_job_factor;
        for (size_t k = 0; k < cp->n_nodes; k++) {
            const struct conf_node *n = &cf->nodes[cp->node_idx[k]];
            ps->part_tres[i][LIMITS_TRES_CPU] += n->cpus;
            ps->part_tres[i][LIMITS_TRES_MEM] += n->mem_mib;
            ps->part_tres[i][LIMITS_TRES_NODE]++;
            ps->part_tres[i][LIMITS_TRES_GPU] +=
                gres_count(n->gres, "gpu", NULL);
        }
    }
    ps->norm.nodes = (uint32_t)cf->n_nodes;
    for (size_t i = 0; i < cf->n_nodes; i++)
        ps->norm.cpus += cf->nodes[i].cpus;
    return 0;
}

int prio_setup_init(struct prio_setup *ps, const struct conf *cf, struct err *e)
{
    memset(ps, 0, sizeof(*ps));
    if (weights(ps, cf, e) < 0 || parts(ps, cf, e) < 0) {
        prio_setup_free(ps);
        errno = EINVAL;
        return -1;
    }
    return 0;
}

void prio_setup_free(struct prio_setup *ps)
{
    free(ps->billing);
    free(ps->part_tres);
    free(ps->part_factor);
    memset(ps, 0, sizeof(*ps));
}

/* The TRES of r in all. */
static void req_tres(const struct prio_setup_req *r,
                     uint64_t tres[LIMITS_TRES_COUNT])
{
    memset(tres, 0, LIMITS_TRES_COUNT * sizeof(*tres));
    tres[LIMITS_TRES_CPU] = (uint64_t)r->cpus_per_node * r->nodes;
    tres[LIMITS_TRES_MEM] = r->mem_per_node_mib * r->nodes;
    tres[LIMITS_TRES_NODE] = r->nodes;
    tres[LIMITS_TRES_GPU] = (uint64_t)r->gpus_per_node * r->nodes;
}

void prio_setup_job(const struct prio_setup *ps, const struct prio_setup_req *r,
                    struct prio_job *out)
{
    memset(out, 0, sizeof(*out));
    out->nodes = r->nodes;
    out->cpus = r->cpus_per_node * r->nodes;
    out->time_limit_s = r->time_limit_s > 0 ? r->time_limit_s : 0;
    req_tres(r, out->tres);
    if (r->part < ps->nparts) {
        out->part_factor = ps->part_factor[r->part];
        memcpy(out->part_tres, ps->part_tres[r->part], sizeof(out->part_tres));
    }
}

double prio_setup_charge(const struct prio_setup *ps,
                         const struct prio_setup_req *r, double usage_factor,
                         time_t from, time_t to)
{
    static const double none[LIMITS_TRES_COUNT];
    uint64_t tres[LIMITS_TRES_COUNT];

    if (to <= from)
        return 0;
    req_tres(r, tres);
    return fs_billing(tres, r->part < ps->nparts ? ps->billing[r->part] : none,
                      ps->max_tres) *
           (double)(to - from) * usage_factor;
}
