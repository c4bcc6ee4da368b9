/*
 * Multifactor priority arithmetic.  Each factor follows Slurm's
 * priority/multifactor definitions; the job size rules are spelled out at
 * prio_job_size.  Pure: no I/O, no clock.
 */
#include "sched/prio.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const factor_names[PRIO_NFACTORS] = {
    [PRIO_AGE] = "age",         [PRIO_FAIRSHARE] = "fairshare",
    [PRIO_JOBSIZE] = "jobsize", [PRIO_PARTITION] = "partition",
    [PRIO_QOS] = "qos",         [PRIO_TRES] = "tres",
};

const char *prio_factor_name(enum prio_factor f)
{
    if ((unsigned)f >= PRIO_NFACTORS)
        return "unknown";
    return factor_names[f];
}

static const struct {
    const char *name;
    unsigned bits;
} flag_names[] = {
    {"ACCRUE_ALWAYS", PRIO_F_ACCRUE_ALWAYS},
    {"SMALL_RELATIVE_TO_TIME", PRIO_F_SMALL_RELATIVE_TO_TIME},
    {"MAX_TRES", PRIO_F_MAX_TRES},
    {"NO_FAIR_TREE", PRIO_F_NO_FAIR_TREE},
    {"NO_NORMAL_PART", PRIO_F_NO_NORMAL_PART},
    {"NO_NORMAL_QOS", PRIO_F_NO_NORMAL_QOS},
    {"NO_NORMAL_TRES", PRIO_F_NO_NORMAL_TRES},
    {"NO_NORMAL_ASSOC", PRIO_F_NO_NORMAL_ASSOC},
    {"NO_NORMAL_ALL", PRIO_F_NO_NORMAL_PART | PRIO_F_NO_NORMAL_QOS |
                          PRIO_F_NO_NORMAL_TRES | PRIO_F_NO_NORMAL_ASSOC},
    {"FAIR_TREE", 0},
    {"DEPTH_OBLIVIOUS", 0},
    {"CALCULATE_RUNNING", 0},
    {"INCR_ONLY", 0},
};

int prio_flags_parse(const char *s, unsigned *flags, struct err *e)
{
    unsigned out = 0;
    const char *p = s;

    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ",");
        size_t k;
        for (k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++)
            if (strlen(flag_names[k].name) == len &&
                strncasecmp(flag_names[k].name, p, len) == 0)
                break;
        if (len > 0 && k == sizeof(flag_names) / sizeof(flag_names[0])) {
            errno = EINVAL;
            return err_set(e, "PriorityFlags: unknown flag \"%.*s\"", (int)len,
                           p);
        }
        if (len > 0)
            out |= flag_names[k].bits;
        p += len;
        if (*p == ',')
            p++;
    }
    *flags = out;
    return 0;
}

/* The TRES name of a weight item; -1 when unknown. */
static int tres_index(const char *name, size_t len)
{
    static const char *const names[LIMITS_TRES_COUNT] = {
        [LIMITS_TRES_CPU] = "cpu",      [LIMITS_TRES_MEM] = "mem",
        [LIMITS_TRES_NODE] = "node",    [LIMITS_TRES_BILLING] = "billing",
        [LIMITS_TRES_GPU] = "gres/gpu",
    };
    for (int i = 0; i < LIMITS_TRES_COUNT; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0)
            return i;
    return -1;
}

int prio_tres_weights_parse(const char *s, double w[LIMITS_TRES_COUNT],
                            struct err *e)
{
    const char *p = s;

    for (int i = 0; i < LIMITS_TRES_COUNT; i++)
        w[i] = 0;
    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
        char num[64], *end;
        int t = tres_index(p, klen);
        double v;
        if (klen >= len || t < 0 || len - klen - 1 >= sizeof(num)) {
            errno = EINVAL;
            return err_set(e,
                           "bad TRES weight \"%.*s\" (want NAME=NUMBER, "
                           "NAME one of CPU, Mem, Node, Billing, GRES/gpu)",
                           (int)len, p);
        }
        memcpy(num, p + klen + 1, len - klen - 1);
        num[len - klen - 1] = '\0';
        v = strtod(num, &end);
        /* a unit on Mem: the weight is per that unit, not per MiB */
        if (t == LIMITS_TRES_MEM && end != num && *end != '\0' &&
            end[1] == '\0') {
            if (*end == 'G' || *end == 'g')
                v /= 1024, end++;
            else if (*end == 'T' || *end == 't')
                v /= 1024.0 * 1024, end++;
            else if (*end == 'M' || *end == 'm')
                end++;
        }
        if (end == num || *end != '\0' || !isfinite(v) || v < 0) {
            errno = EINVAL;
            return err_set(e,
                           "bad TRES weight \"%.*s\": \"%s\" is not a "
                           "number >= 0",
                           (int)len, p, num);
        }
        w[t] = v;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

void prio_accrue_set(struct prio_accrual *a, bool eligible, time_t now)
{
    if (a->since != 0 && now > a->since)
        a->accrued_s += now - a->since;
    a->since = eligible ? now : 0;
}

int64_t prio_accrue_age_s(const struct prio_accrual *a, time_t now)
{
    int64_t age = a->accrued_s;

    if (a->since != 0 && now > a->since)
        age += now - a->since;
    return age;
}

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/*
 * Job size, as Slurm computes it:
 * - by default, the mean of nodes/cluster nodes and CPUs/cluster CPUs, so
 *   that a job asking for the whole cluster gets 1.0;
 * - PriorityFavorSmall: the mean of (cluster nodes - nodes)/cluster nodes
 *   and (cluster CPUs - CPUs)/cluster CPUs, so the smallest job gets most;
 * - SMALL_RELATIVE_TO_TIME: the size in CPUs (at least nodes x the mean
 *   CPUs per node) divided by the time limit in minutes, over the cluster's
 *   CPUs: a short wide job counts as big as a long narrow one; inverted
 *   with PriorityFavorSmall.
 */
double prio_job_size(const struct prio_conf *c, const struct prio_norm *n,
                     const struct prio_job *j)
{
    double nodes = n->nodes ? n->nodes : 1,
           cpus = n->cpus ? (double)n->cpus : 1;
    double f;

    if (c->flags & PRIO_F_SMALL_RELATIVE_TO_TIME) {
        double size = (double)j->nodes * cpus / nodes, minutes = 1;
        if (j->cpus > size)
            size = j->cpus;
        if (j->time_limit_s > 0)
            minutes = ceil((double)j->time_limit_s / 60.0);
        f = clamp01(size / minutes / cpus);
        return c->favor_small ? 1.0 - f : f;
    }
    if (c->favor_small)
        f = ((nodes - j->nodes) / nodes + (cpus - j->cpus) / cpus) / 2;
    else
        f = (j->nodes / nodes + j->cpus / cpus) / 2;
    return clamp01(f);
}

static double age_factor(const struct prio_conf *c, const struct prio_job *j)
{
    int64_t age =
        (c->flags & PRIO_F_ACCRUE_ALWAYS) ? j->since_submit_s : j->age_s;
    int64_t max = c->max_age_s > 0 ? c->max_age_s : 1;

    if (age <= 0)
        return 0;
    return age >= max ? 1.0 : (double)age / (double)max;
}

static double ratio(uint32_t v, uint32_t max, bool raw)
{
    if (raw)
        return v;
    return max == 0 ? 0 : clamp01((double)v / (double)max);
}

static void tres_factors(const struct prio_conf *c, const struct prio_job *j,
                         struct prio_result *r)
{
    bool raw = c->flags & PRIO_F_NO_NORMAL_TRES;

    r->norm[PRIO_TRES] = r->weighted[PRIO_TRES] = 0;
    for (int t = 0; t < LIMITS_TRES_COUNT; t++) {
        double f;
        if (raw)
            f = (double)j->tres[t];
        else
            f = j->part_tres[t] == 0
                    ? 0
                    : clamp01((double)j->tres[t] / (double)j->part_tres[t]);
        r->tres_norm[t] = f;
        r->tres_weighted[t] = c->weight_tres[t] * f;
        r->weighted[PRIO_TRES] += r->tres_weighted[t];
        if (c->weight_tres[t] > 0)
            r->norm[PRIO_TRES] += f;
    }
}

uint32_t prio_compute(const struct prio_conf *c, const struct prio_norm *n,
                      const struct prio_job *j, struct prio_result *out)
{
    struct prio_result r;
    double total = 0;

    memset(&r, 0, sizeof(r));
    r.nice = j->nice;
    if (!c->multifactor) {
        r.priority = 1;
        goto done;
    }
    r.norm[PRIO_AGE] = age_factor(c, j);
    r.norm[PRIO_FAIRSHARE] = clamp01(j->fairshare);
    r.norm[PRIO_JOBSIZE] = prio_job_size(c, n, j);
    r.norm[PRIO_PARTITION] = ratio(j->part_factor, n->max_part_factor,
                                   c->flags & PRIO_F_NO_NORMAL_PART);
    r.norm[PRIO_QOS] =
        ratio(j->qos_prio, n->max_qos_prio, c->flags & PRIO_F_NO_NORMAL_QOS);
    for (int f = 0; f < PRIO_TRES; f++) {
        r.weighted[f] = (double)c->weight[f] * r.norm[f];
        total += r.weighted[f];
    }
    tres_factors(c, j, &r);
    total += r.weighted[PRIO_TRES];
    total -= j->nice;
    if (total < 1)
        r.priority = 1;
    else if (total >= (double)(UINT32_MAX - 1))
        r.priority = UINT32_MAX - 1;
    else
        r.priority = (uint32_t)total;
done:
    if (out != NULL)
        *out = r;
    return r.priority;
}
