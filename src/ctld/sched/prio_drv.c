/*
 * Job priorities in the controller: the configuration made into the pure
 * core's prio_conf and prio_norm, each job's prio_job assembled from the
 * job, its partition, QOS and association, and the PriorityCalcPeriod
 * timer that charges, decays and resets usage and recomputes every
 * pending job.
 */
#include "ctld/sched/prio_drv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/acct/acct.h"
#include "ctld/core/loop.h"
#include "ctld/queue/jobs.h"
#include "ctld/sched/prio_int.h"

#define KEY_MAX 512

bool prio_drv_eligible(const struct job *j, time_t now)
{
    return j->state == JOB_PENDING && !j->held_user && !j->held_admin &&
           !j->part_time_limit && !j->part_node_limit &&
           j->dep_state == DEP_MET && /* a dependency wait is no age */
           (j->begin_time == 0 || j->begin_time <= now);
}

static uint32_t max_qos_prio(const struct acct *a)
{
    uint32_t m = 0;

    for (size_t i = 0; acct_qos_at(a, i) != NULL; i++)
        if (acct_qos_at(a, i)->priority > m)
            m = acct_qos_at(a, i)->priority;
    return m;
}

/* What j asks for, as the priority settings read it. */
static struct prio_setup_req job_req(const struct job *j, uint32_t nodes)
{
    return (struct prio_setup_req){
        .part = j->part,
        .nodes = nodes,
        .cpus_per_node = j->cpus_per_node,
        .mem_per_node_mib = job_mem_per_node(j),
        .gpus_per_node = j->gpus_per_node,
        .time_limit_s =
            j->time_limit_s == TIMEFMT_INFINITE ? 0 : j->time_limit_s,
    };
}

static void compute(struct prio_drv *p, struct job *j, time_t now)
{
    const struct acct_qos *q = j->qos ? acct_qos_find(p->src.acct, j->qos) : 0;
    struct prio_setup_req r = job_req(j, j->nodes);
    struct prio_job pj;
    char key[KEY_MAX];
    size_t k;

    prio_setup_job(&p->ps, &r, &pj);
    pj.age_s = prio_accrue_age_s(&j->accrual, now);
    pj.since_submit_s = now > j->submit_time ? now - j->submit_time : 0;
    pj.qos_prio = q ? q->priority : 0;
    pj.nice = j->nice;
    if (prio_job_key(p, j, key, sizeof(key)) &&
        (k = prio_tree_find(p, key)) != SIZE_MAX)
        pj.fairshare = p->fs[k].factor;
    if (j->factors == NULL)
        j->factors = xcalloc(1, sizeof(*j->factors));
    j->priority = prio_compute(&p->ps.pc, &p->ps.norm, &pj, j->factors);
    j->prio_gen = p->gen;
}

double prio_usage_rate(const struct prio_drv *p, const struct job *j,
                       double factor, time_t from, time_t to)
{
    struct prio_setup_req r = job_req(j, (uint32_t)j->n_alloc);

    return prio_setup_charge(&p->ps, &r, factor, from, to);
}

static void recompute_all(struct prio_drv *p, time_t now)
{
    size_t n = 0;

    for (struct job *j = jobs_first_active(p->src.jobs); j != NULL;
         j = j->anext)
        if (j->state == JOB_PENDING && !j->prio_fixed) {
            compute(p, j, now);
            n++;
        }
    log_debug("priority recomputed jobs=%zu gen=%" PRIu64, n, p->gen);
}

static void tree_refresh(struct prio_drv *p)
{
    p->acct_gen = acct_generation(p->src.acct);
    p->ps.norm.max_qos_prio = max_qos_prio(p->src.acct);
    prio_tree_build(p);
    p->gen++;
}

void prio_drv_sync(struct prio_drv *p, time_t now)
{
    if (acct_generation(p->src.acct) == p->acct_gen)
        return;
    tree_refresh(p);
    recompute_all(p, now);
}

/* jobs_events.job_event: j changed at now: fold its accrual and, if it is
 * pending, recompute its priority (saved with its record). */
static void job_event(void *arg, struct job *j, const char *what, time_t now)
{
    struct prio_drv *p = arg;
    bool eligible = prio_drv_eligible(j, now);
    time_t at = now;

    (void)what; /* the job as it stands says all */
    /* a job whose begin time came: it has accrued since then */
    if (eligible && j->accrual.since == 0 && j->begin_time > j->submit_time &&
        j->begin_time <= now && strcmp(job_reason(j), "BeginTime") == 0)
        at = j->begin_time;
    prio_accrue_set(&j->accrual, eligible, at);
    if (j->state != JOB_PENDING)
        j->start_est = 0;
    if (j->state == JOB_PENDING && !j->prio_fixed) {
        prio_drv_sync(p, now);
        compute(p, j, now);
    }
}

/* jobs_events.job_ended: charge the usage of j (leaving its nodes at
 * end). */
static void job_ended(void *arg, struct job *j, time_t end)
{
    struct prio_drv *p = arg;
    time_t from;
    char key[KEY_MAX];
    struct err e;

    if (j->start_time == 0)
        return;
    from = j->start_time > p->last_calc ? j->start_time : p->last_calc;
    prio_usage_charge(p, j, from, end);
    if (prio_job_key(p, j, key, sizeof(key)) &&
        loop_write(p->src.loop, &e) == 0 && prio_usage_save_one(p, key, &e) < 0)
        log_warnx("job=%" PRIu64 " usage not saved: %s", j->id, e.text);
    if (j->qos != NULL) {
        prio_usage_qos_key(j->qos, key, sizeof(key));
        if (loop_write(p->src.loop, &e) == 0 &&
            prio_usage_save_one(p, key, &e) < 0)
            log_warnx("job=%" PRIu64 " QOS usage not saved: %s", j->id, e.text);
    }
}

const struct jobs_events prio_drv_events = {
    .job_event = job_event,
    .job_ended = job_ended,
};

static void charge_and_decay(struct prio_drv *p, time_t now)
{
    time_t last = p->last_calc;

    if (now <= last)
        return;
    for (size_t i = 0; i < p->nusage; i++)
        if (!prio_usage_no_decay(p, p->usage[i].key))
            p->usage[i].usage = fs_decay(
                p->usage[i].usage, (double)(now - last), p->ps.half_life_s);
    for (struct job *j = jobs_first_active(p->src.jobs); j != NULL;
         j = j->anext)
        if (j->state == JOB_RUNNING || j->state == JOB_COMPLETING)
            prio_usage_charge(p, j, j->start_time > last ? j->start_time : last,
                              now);
    p->last_calc = now;
}

static void maybe_reset(struct prio_drv *p, time_t now)
{
    if (p->ps.reset == FS_RESET_NONE || p->ps.reset == FS_RESET_NOW)
        return;
    if (p->next_reset != 0 && now >= p->next_reset) {
        for (size_t i = 0; i < p->nusage; i++)
            if (!prio_usage_no_decay(p, p->usage[i].key))
                p->usage[i].usage = 0;
        log_info("fairshare usage reset (PriorityUsageResetPeriod)");
    }
    if (p->next_reset == 0 || now >= p->next_reset)
        p->next_reset = fs_reset_next(p->ps.reset, now);
}

void prio_drv_refresh(struct prio_drv *p, time_t now)
{
    struct err e;

    /* usage is charged, decayed and saved at once: while the state
     * directory takes no writes a later period does it (last_calc stays,
     * so no usage is lost) */
    if (loop_writable(p->src.loop)) {
        charge_and_decay(p, now);
        maybe_reset(p, now);
        if (loop_write(p->src.loop, &e) < 0 || prio_usage_save(p, &e) < 0)
            log_warnx("fairshare usage not saved: %s", e.text);
    }
    tree_refresh(p);
    recompute_all(p, now);
    loop_want_pass(p->src.loop);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    prio_drv_refresh(arg, time(NULL));
}

struct prio_drv *prio_drv_create(const struct prio_drv_src *src, struct err *e)
{
    struct prio_drv *p = xcalloc(1, sizeof(*p));
    struct timeval tv;
    time_t now = time(NULL);

    p->src = *src;
    if (prio_setup_init(&p->ps, src->conf, e) < 0 || prio_usage_open(p, e) < 0)
        goto error;
    if (p->last_calc == 0 || p->last_calc > now)
        p->last_calc = now;
    if (p->ps.reset == FS_RESET_NOW) {
        for (size_t i = 0; i < p->nusage; i++)
            if (!prio_usage_no_decay(p, p->usage[i].key))
                p->usage[i].usage = 0;
        log_info("fairshare usage reset (PriorityUsageResetPeriod=NOW)");
    }
    prio_drv_refresh(p, now);
    p->timer = event_new(src->base, -1, EV_PERSIST, timer_cb, p);
    tv = (struct timeval){p->ps.calc_period_s, 0};
    event_add(p->timer, &tv);
    return p;
error:
    prio_drv_destroy(p);
    return NULL;
}

void prio_drv_destroy(struct prio_drv *p)
{
    int saved = errno;

    if (p == NULL)
        return;
    if (p->timer)
        event_free(p->timer);
    prio_usage_close(p);
    prio_tree_free(p);
    prio_setup_free(&p->ps);
    free(p);
    errno = saved;
}
