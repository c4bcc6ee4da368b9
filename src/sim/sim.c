/*
 * The simulator's engine (sim.h): the jobs of a run, the event loop, and
 * what happens to a job between its passes: submitted (with the
 * controller's checks at submit), started, ended, requeued.
 */
#include "sim/sim_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "sched/select.h"

const char *sim_end_name(enum sim_end s)
{
    static const char *const names[] = {"COMPLETED", "TIMEOUT", "PREEMPTED",
                                        "NEVER_STARTED", "REJECTED"};

    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void sim_push(struct sim *s, time_t t, enum sim_ev kind, size_t job,
              uint32_t gen)
{
    if (kind != SIM_EV_PRIO)
        s->real_events++;
    sim_clock_at(&s->clock, t, (int)kind, job, gen);
}

void sim_gpu_change(struct sim *s, size_t part, int64_t delta, time_t t)
{
    struct sim_result *r = s->out;

    if (delta == 0)
        return;
    if ((r->ngpu & (r->ngpu - 1)) == 0 || r->ngpu == 0)
        r->gpu =
            xreallocarray(r->gpu, r->ngpu ? 2 * r->ngpu : 256, sizeof(*r->gpu));
    r->gpu[r->ngpu++] = (struct sim_gpu_change){t, part, delta};
}

/* ---- the pending and running lists ---------------------------------------- */

void sim_pend_add(struct sim *s, size_t k)
{
    s->pend = xreallocarray(s->pend, s->npend + 1, sizeof(*s->pend));
    s->jobs[k].pend_at = s->npend;
    s->pend[s->npend++] = k;
}

void sim_pend_del(struct sim *s, size_t k)
{
    size_t at = s->jobs[k].pend_at;

    if (at == SIZE_MAX)
        return;
    s->pend[at] = s->pend[--s->npend];
    s->jobs[s->pend[at]].pend_at = at;
    s->jobs[k].pend_at = SIZE_MAX;
}

static void run_add(struct sim *s, size_t k)
{
    s->run = xreallocarray(s->run, s->nrun + 1, sizeof(*s->run));
    s->jobs[k].run_at = s->nrun;
    s->run[s->nrun++] = k;
}

void sim_run_del(struct sim *s, size_t k)
{
    size_t at = s->jobs[k].run_at;

    if (at == SIZE_MAX)
        return;
    s->run[at] = s->run[--s->nrun];
    s->jobs[s->run[at]].run_at = at;
    s->jobs[k].run_at = SIZE_MAX;
}

/* ---- nodes ------------------------------------------------------------------ */

static void node_charge(struct sim *s, const struct sjob *j, int sign)
{
    const struct sim_job_in *in = j->in;

    for (size_t i = 0; i < j->nalloc; i++) {
        struct sched_node *n = &s->nodes[j->alloc[i]];
        if (sign > 0) {
            n->cpus_alloc += in->cpus_per_node;
            n->mem_alloc_mib += in->mem_per_node_mib;
        } else {
            n->cpus_alloc -= n->cpus_alloc < in->cpus_per_node
                                 ? n->cpus_alloc
                                 : in->cpus_per_node;
            n->mem_alloc_mib -= n->mem_alloc_mib < in->mem_per_node_mib
                                    ? n->mem_alloc_mib
                                    : in->mem_per_node_mib;
        }
        for (uint32_t g = 0; j->gpus != NULL && g < j->gpus_per_node; g++) {
            uint32_t p = j->gpus[i * j->gpus_per_node + g];
            uint64_t bit = UINT64_C(1) << (p % 64);
            if (p >= n->ngpus)
                continue;
            if (sign > 0)
                n->gpu_used[p / 64] |= bit;
            else
                n->gpu_used[p / 64] &= ~bit;
        }
    }
}

/* The users on each node (ExclusiveUser): recomputed from the running
 * jobs of the nodes j runs on. */
static void node_users(struct sim *s, const struct sjob *j)
{
    for (size_t i = 0; i < j->nalloc; i++) {
        struct sched_node *n = &s->nodes[j->alloc[i]];
        n->users = 0;
        n->user = 0;
        n->user_exclusive = false;
        for (size_t r = 0; r < s->nrun; r++) {
            const struct sjob *o = &s->jobs[s->run[r]];
            bool on = false;
            for (size_t a = 0; a < o->nalloc && !on; a++)
                on = o->alloc[a] == j->alloc[i];
            if (!on)
                continue;
            if (n->users == 0) {
                n->users = 1;
                n->user = o->uid;
            } else if (n->user != o->uid) {
                n->users = 2;
            }
            n->user_exclusive |= s->conf->parts[o->part].exclusive_user;
        }
    }
}

/* ---- a job's life ------------------------------------------------------------ */

void sim_start_job(struct sim *s, size_t k, const struct sched_decision *d,
                   time_t now)
{
    struct sjob *j = &s->jobs[k];
    struct sim_job_out *o = &s->out->jobs[k];
    int64_t lim = d->time_limit_s > 0 ? d->time_limit_s : j->limit_s;
    int64_t dur = lim > 0 && lim < j->left_s ? lim : j->left_s;

    j->alloc = xcalloc(d->nnodes, sizeof(*j->alloc));
    memcpy(j->alloc, d->nodes, d->nnodes * sizeof(*j->alloc));
    j->nalloc = d->nnodes;
    j->gpus_per_node = d->gpus != NULL ? j->in->gpus_per_node : 0;
    if (j->gpus_per_node > 0) {
        j->gpus = xcalloc(d->nnodes * j->gpus_per_node, sizeof(*j->gpus));
        memcpy(j->gpus, d->gpus,
               d->nnodes * j->gpus_per_node * sizeof(*j->gpus));
    }
    if (d->time_limit_s > 0)
        j->limit_s = d->time_limit_s;
    node_charge(s, j, 1);
    sim_pend_del(s, k);
    run_add(s, k);
    node_users(s, j);
    j->st = SJ_RUNNING;
    j->start = now;
    j->susp_s = 0;
    j->killing = false;
    j->gen++;
    if (j->charge != NULL)
        limits_charge_start(j->charge);
    prio_accrue_set(&j->acc, false, now);
    if (o->runs++ == 0)
        o->first_start = now;
    s->out->starts = xreallocarray(s->out->starts, s->out->nstarts + 1,
                                   sizeof(*s->out->starts));
    s->out->starts[s->out->nstarts++] = (struct sim_start){now, k};
    sim_gpu_change(s, j->part, (int64_t)j->gpus_per_node * (int64_t)j->nalloc,
                   now);
    sim_push(s, now + dur, SIM_EV_END, k, j->gen);
}

/* Take j off its nodes at now: what it held, its usage. */
void sim_stop_run(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];
    struct sim_job_out *o = &s->out->jobs[k];
    int64_t held = now - j->start - j->susp_s;

    if (j->st == SJ_RUNNING)
        node_charge(s, j, -1);
    else if (j->st == SJ_SUSPENDED) {
        /* its CPUs were released when it was suspended */
        for (size_t i = 0; i < j->nalloc; i++)
            s->nodes[j->alloc[i]].cpus_alloc += j->in->cpus_per_node;
        node_charge(s, j, -1);
    }
    sim_prio_ended(s, k, now);
    sim_run_del(s, k);
    node_users(s, j);
    o->gpu_s += (uint64_t)(held > 0 ? held : 0) * j->gpus_per_node * j->nalloc;
    o->end_time = now;
    sim_gpu_change(s, j->part, -(int64_t)j->gpus_per_node * (int64_t)j->nalloc,
                   now);
    free(j->alloc);
    free(j->gpus);
    j->alloc = NULL;
    j->gpus = NULL;
    j->nalloc = 0;
    j->gen++;
}

static void finish(struct sim *s, size_t k, enum sim_end how, time_t now)
{
    struct sjob *j = &s->jobs[k];

    if (j->st == SJ_RUNNING || j->st == SJ_SUSPENDED)
        sim_stop_run(s, k, now);
    sim_pend_del(s, k);
    limits_charge_destroy(j->charge);
    j->charge = NULL;
    j->st = SJ_DONE;
    s->out->jobs[k].end = how;
}

/* The controller's checks at submit; false when k is refused. */
static bool admit(struct sim *s, size_t k)
{
    struct sjob *j = &s->jobs[k];
    const struct conf_part *cp = &s->conf->parts[j->part];
    struct sim_job_out *o = &s->out->jobs[k];
    struct limits_job v;
    const char *reason;
    uint64_t wall;
    struct err e;

    if (j->qos == SIZE_MAX && o->qos != NULL) {
        o->reason = "InvalidQOS";
        return false;
    }
    sim_limits_chain(s, j);
    if (s->enforce) {
        sim_limits_view(s, j, &v);
        wall = limits_max_wall(&v);
        if (j->limit_s == 0 && wall != LIMITS_UNSET) {
            j->limit_s = (int64_t)wall;
            v.wall_s = wall;
        }
        if (limits_check_submit(s->lusage, &v, &reason, &e) < 0) {
            o->reason = reason;
            return false;
        }
    }
    if (cp->max_time_s != TIMEFMT_INFINITE && j->limit_s > cp->max_time_s) {
        if (s->conf->enforce_part_limits != CONF_ENFORCE_NO) {
            o->reason = "PartitionTimeLimit";
            return false;
        }
        j->parked = true;
        j->reason = "PartitionTimeLimit";
    }
    return true;
}

static void submit(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];
    struct limits_job v;

    if (!admit(s, k)) {
        finish(s, k, SIM_END_REJECTED, now);
        return;
    }
    if (s->enforce) {
        sim_limits_view(s, j, &v);
        j->charge = limits_charge_create(s->lusage, &v);
    }
    j->st = SJ_PENDING;
    j->left_s = j->in->run_s;
    if (!j->parked)
        sim_pend_add(s, k);
    prio_accrue_set(&j->acc, !j->parked, now);
    sim_prio_job(s, k, now);
}

/* A run reached its end or its time limit. */
static void ended(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];
    int64_t ran = now - j->start - j->susp_s;

    finish(s, k, j->in->run_s > ran ? SIM_END_TIMEOUT : SIM_END_DONE, now);
}

/* A preempted victim's kill: requeued or cancelled. */
static void killed(struct sim *s, size_t k, time_t now)
{
    struct sjob *j = &s->jobs[k];

    if (j->kill_mode != CONF_PREEMPT_MODE_REQUEUE) {
        finish(s, k, SIM_END_PREEMPTED, now);
        return;
    }
    sim_stop_run(s, k, now);
    if (j->charge != NULL)
        limits_charge_stop(j->charge);
    j->st = SJ_PENDING;
    j->killing = false;
    j->left_s = j->in->run_s; /* it starts again from the beginning */
    sim_pend_add(s, k);
    prio_accrue_set(&j->acc, true, now);
    sim_prio_job(s, k, now);
}

static void event(struct sim *s, const struct sim_event *ev)
{
    struct sjob *j = ev->kind == SIM_EV_PRIO || ev->kind == SIM_EV_WAKE
                         ? NULL
                         : &s->jobs[ev->job];
    time_t now = ev->t;

    if (ev->kind != SIM_EV_PRIO)
        s->real_events--;
    switch ((enum sim_ev)ev->kind) {
    case SIM_EV_SUBMIT:
        submit(s, ev->job, now);
        break;
    case SIM_EV_END:
        if (j->st != SJ_RUNNING || j->gen != ev->gen)
            return; /* a run that was preempted or suspended */
        ended(s, ev->job, now);
        break;
    case SIM_EV_KILL:
        if (j->st != SJ_RUNNING || j->gen != ev->gen || !j->killing)
            return;
        killed(s, ev->job, now);
        break;
    case SIM_EV_PRIO:
        sim_prio_refresh(s, now);
        if (s->real_events > 0)
            sim_push(s, now + s->ps.calc_period_s, SIM_EV_PRIO, 0, 0);
        break;
    case SIM_EV_WAKE:
        s->wake_at = 0;
        break;
    }
    s->want = true;
}

/* ---- setting up ---------------------------------------------------------- */

static void nodes_init(struct sim *s)
{
    const struct conf *c = s->conf;
    size_t ngpu = 0, off = 0, goff = 0;

    s->nodes = xcalloc(c->n_nodes ? c->n_nodes : 1, sizeof(*s->nodes));
    s->mnodes = xcalloc(c->n_nodes ? c->n_nodes : 1, sizeof(*s->mnodes));
    for (size_t i = 0; i < c->n_nodes; i++) {
        uint64_t g = gres_count(c->nodes[i].gres, "gpu", NULL);
        ngpu += g > SCHED_GPU_MAX ? SCHED_GPU_MAX : g;
        s->nwords += SCHED_GPU_WORDS(g > SCHED_GPU_MAX ? SCHED_GPU_MAX : g);
    }
    s->used = xcalloc(s->nwords ? s->nwords : 1, sizeof(*s->used));
    s->mused = xcalloc(s->nwords ? s->nwords : 1, sizeof(*s->mused));
    s->gpus = xcalloc(ngpu ? ngpu : 1, sizeof(*s->gpus));
    for (size_t i = 0; i < c->n_nodes; i++) {
        const struct conf_node *cn = &c->nodes[i];
        uint32_t n = 0;
        for (size_t k = 0; k < cn->gres->n; k++) {
            const struct gres_item *it = &cn->gres->items[k];
            if (strcmp(it->name, "gpu") != 0)
                continue;
            for (uint64_t x = 0; x < it->count && n < SCHED_GPU_MAX; x++)
                s->gpus[goff + n++].type = it->type;
        }
        s->nodes[i] = (struct sched_node){
            .name = cn->name,
            .cpus = cn->cpus,
            .mem_mib = cn->mem_mib,
            .up = cn->state != CONF_NODE_DOWN && cn->state != CONF_NODE_FAIL &&
                  cn->state != CONF_NODE_FUTURE,
            .drain = cn->state == CONF_NODE_DRAIN,
            .ngpus = n,
            .gpus = n > 0 ? &s->gpus[goff] : NULL,
            .gpu_used = s->used + off,
            .features = cn->features,
            .weight = cn->weight,
        };
        s->out->cluster_gpus += n;
        goff += n;
        off += SCHED_GPU_WORDS(n);
    }
}

static void parts_init(struct sim *s)
{
    const struct conf *c = s->conf;

    s->nparts = c->n_parts;
    s->parts = xcalloc(c->n_parts ? c->n_parts : 1, sizeof(*s->parts));
    s->out->nparts = c->n_parts;
    s->out->part_names = xcalloc(c->n_parts ? c->n_parts : 1, sizeof(char *));
    s->out->part_gpus = xcalloc(c->n_parts ? c->n_parts : 1, sizeof(uint64_t));
    for (size_t i = 0; i < c->n_parts; i++) {
        const struct conf_part *cp = &c->parts[i];
        s->parts[i] = (struct sched_part){
            .name = cp->name,
            .start_jobs =
                cp->state == CONF_PART_UP || cp->state == CONF_PART_DRAIN,
            .inactive = cp->state == CONF_PART_INACTIVE,
            .nodes = cp->node_idx,
            .nnodes = cp->n_nodes,
        };
        s->out->part_names[i] = xstrdup(cp->name);
        for (size_t k = 0; k < cp->n_nodes; k++)
            s->out->part_gpus[i] += s->nodes[cp->node_idx[k]].ngpus;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Job ids must be unique for the core; the trace's are used when they
 * are, else positions. */
static bool ids_unique(const struct sim_trace *t)
{
    uint64_t *ids = xcalloc(t->n ? t->n : 1, sizeof(*ids));
    bool ok = true;

    for (size_t i = 0; i < t->n; i++) {
        ids[i] = t->jobs[i].id;
        ok = ok && ids[i] > 0;
    }
    if (ok && t->n > 1) {
        qsort(ids, t->n, sizeof(*ids), cmp_u64);
        for (size_t i = 1; i < t->n && ok; i++)
            ok = ids[i] != ids[i - 1];
    }
    free(ids);
    return ok;
}

/* The uid of a user: its place in the accounting's users. */
static uint32_t uid_of(const struct sim_acct *a, const char *user)
{
    for (size_t i = 0; i < a->nusers; i++)
        if (strcmp(a->users[i].name, user) == 0)
            return (uint32_t)i + 1000;
    return 999;
}

static int jobs_init(struct sim *s, const struct sim_trace *t, struct err *e)
{
    bool unique = ids_unique(t);

    s->njobs = t->n;
    s->jobs = xcalloc(t->n ? t->n : 1, sizeof(*s->jobs));
    s->out->njobs = t->n;
    s->out->jobs = xcalloc(t->n ? t->n : 1, sizeof(*s->out->jobs));
    for (size_t k = 0; k < t->n; k++) {
        const struct sim_job_in *in = &t->jobs[k];
        struct sjob *j = &s->jobs[k];
        const struct conf_part *cp = in->part
                                         ? conf_part_find(s->conf, in->part)
                                         : conf_part_default(s->conf);
        const char *qos;
        if (cp == NULL)
            return err_inval(e,
                             "%s:%u: job %llu: no partition %s in the "
                             "configuration (--map names partitions)",
                             t->name, in->line, (unsigned long long)in->id,
                             in->part ? in->part : "(default)");
        j->in = in;
        j->id = unique ? in->id : k + 1;
        j->part = (size_t)(cp - s->conf->parts);
        j->tier = cp->priority_tier;
        j->limit_s = in->limit_s > 0 ? in->limit_s
                     : cp->default_time_s == TIMEFMT_INFINITE
                         ? 0
                         : cp->default_time_s;
        j->assoc = sim_acct_ensure(s->acct, in->user, in->account);
        qos = in->qos ? in->qos : sim_acct_default_qos(s->acct, j->assoc);
        if (qos == NULL)
            qos = "normal";
        j->qos = sim_acct_qos(s->acct, qos);
        j->pend_at = j->run_at = SIZE_MAX;
        s->out->jobs[k] = (struct sim_job_out){
            .in = in, .part = j->part, .qos = qos, .end = SIM_END_NEVER};
        sim_push(s, in->submit, SIM_EV_SUBMIT, k, 0);
    }
    for (size_t k = 0; k < t->n; k++)
        s->jobs[k].uid = uid_of(s->acct, t->jobs[k].user);
    return 0;
}

static int setup(struct sim *s, const struct sim_trace *t, struct err *e)
{
    const struct conf *c = s->conf;
    time_t t0 = t->n > 0 ? t->jobs[0].submit : 0;

    for (size_t k = 1; k < t->n; k++)
        if (t->jobs[k].submit < t0)
            t0 = t->jobs[k].submit;
    sim_clock_init(&s->clock, t0);
    s->out->t_first = s->out->t_last = t0;
    nodes_init(s);
    parts_init(s);
    s->backfill = c->scheduler_type == CONF_SCHED_BACKFILL;
    if (sched_bf_params_parse(c->scheduler_parameters, &s->bf, e) < 0)
        return err_prefix(e, "SchedulerParameters");
    s->cycle = sched_bf_cycle_create();
    if (sched_preempt_conf_init(&s->pc, c, e) < 0)
        return -1;
    limits_enforce_parse(c->accounting_storage_enforce, &s->enforce,
                         &s->enforce_qos);
    s->lusage = limits_usage_create();
    if (jobs_init(s, t, e) < 0 || sim_prio_init(s, e) < 0)
        return -1;
    s->last_calc = t0;
    sim_push(s, t0 + s->ps.calc_period_s, SIM_EV_PRIO, 0, 0);
    return 0;
}

static void teardown(struct sim *s)
{
    for (size_t k = 0; k < s->njobs; k++) {
        limits_charge_destroy(s->jobs[k].charge);
        free(s->jobs[k].alloc);
        free(s->jobs[k].gpus);
    }
    limits_usage_destroy(s->lusage);
    sim_holds_free(s);
    sim_prio_free(s);
    sched_bf_cycle_destroy(s->cycle);
    sim_clock_free(&s->clock);
    free(s->jobs);
    free(s->pend);
    free(s->run);
    free(s->nodes);
    free(s->mnodes);
    free(s->used);
    free(s->mused);
    free(s->gpus);
    free(s->parts);
}

/* Nodes of k's partition that could ever hold k (sched.c's rule). */
static size_t fit_ever(const struct sim *s, const struct sjob *j)
{
    const struct sched_part *p = &s->parts[j->part];
    struct sched_job sj = {.cpus_per_node = j->in->cpus_per_node,
                           .mem_per_node_mib = j->in->mem_per_node_mib,
                           .gpus_per_node = j->in->gpus_per_node,
                           .gpu_type = j->in->gpu_type};
    size_t n = 0;

    for (size_t i = 0; i < p->nnodes; i++)
        n += select_fits_ever(&s->nodes[p->nodes[i]], &sj);
    return n;
}

/* What is still pending when nothing more can happen never started: the
 * last reason it waited for says why; "Resources" with every node free
 * means that no node of its partition is big enough (a job behind others
 * is told Priority, or Resources by backfill, before the pass that would
 * say so). */
static void leftovers(struct sim *s)
{
    for (size_t k = 0; k < s->njobs; k++) {
        struct sjob *j = &s->jobs[k];
        const char *why = j->reason ? j->reason : "Resources";
        if (j->st == SJ_DONE)
            continue;
        if ((strcmp(why, "Resources") == 0 || strcmp(why, "Priority") == 0) &&
            fit_ever(s, j) < j->in->nodes)
            why = "Resources (no node of its partition is big enough)";
        s->out->jobs[k].end = SIM_END_NEVER;
        s->out->jobs[k].reason = why;
    }
}

int sim_run(const struct sim_opts *o, const struct sim_trace *t,
            struct sim_acct *acct, struct sim_result *out, struct err *e)
{
    struct sim s = {.o = o, .conf = o->conf, .acct = acct, .out = out};
    struct sim_event ev;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (setup(&s, t, e) < 0)
        goto done;
    /* every event of one second, then a pass if any asked for one */
    while (s.real_events > 0 || s.want) {
        time_t now = sim_clock_next_time(&s.clock);
        while (!s.want && now >= 0 && sim_clock_next_time(&s.clock) == now) {
            while (sim_clock_next_time(&s.clock) == now) {
                sim_clock_pop(&s.clock, &ev);
                event(&s, &ev);
            }
        }
        if (s.want) {
            s.want = false;
            sim_pass(&s, s.clock.now);
            out->passes++;
        }
        out->t_last = s.clock.now;
    }
    leftovers(&s);
    rc = 0;
done:
    teardown(&s);
    return rc;
}

void sim_result_free(struct sim_result *r)
{
    for (size_t i = 0; i < r->nparts; i++)
        free(r->part_names[i]);
    free(r->part_names);
    free(r->part_gpus);
    free(r->jobs);
    free(r->starts);
    free(r->pre);
    free(r->gpu);
    memset(r, 0, sizeof(*r));
}
