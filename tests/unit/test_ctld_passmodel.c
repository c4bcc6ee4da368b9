/*
 * The pass model's property (src/ctld/sched/model.h): on randomized
 * clusters and queues — running, suspended, held, future, dependent and
 * array jobs, preemptors waiting for their victims — the pending jobs
 * that sluice explain says start in the next pass are exactly those that
 * the next scheduling pass starts.  SLUICE_PASSMODEL_SEED (default 1) and
 * SLUICE_PASSMODEL_N (default 1000) choose the scenarios; a failure names
 * the scenario's seed, which reruns it alone (N=1).
 *
 * Nodes are marked registered and connected by hand with a stand-in
 * connection, as in test_ctld_explain.c, and every job's stored payload
 * is dropped, so that a start's JOB_LAUNCH fails before anything is sent
 * (the job ends FAILED: it did start).  Hence no preemption acts
 * (PreemptType=none; the holds of waiting preemptors are restored from
 * the database) and suspended jobs are suspended by an operator, which
 * the resume scheduler leaves alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "ctld_inproc.h"

#include "common/log.h"
#include "ctld/cluster/nodes.h"
#include "ctld/core/persist.h"
#include "ctld/sched/explain.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/sched_drv.h"

#define MAX_NODES 4
#define MAX_KEYS 64

static const struct auth_id alice = {1001, 1001};
/* Stands for a node daemon's connection; nothing is sent on it. */
static char fake_conn;

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * UINT64_C(2685821657736338717)) >> 33) % n;
}

struct node_shape {
    uint32_t cpus, gpus;
    uint64_t mem;
};

struct scenario {
    uint64_t seed;
    size_t nnodes;
    struct node_shape node[MAX_NODES];
    bool backfill;
    char sub[64]; /* the second partition's nodes */
};

static void conf_text(const struct scenario *s, const char *dir, char *out,
                      size_t len)
{
    size_t off = 0;

    off +=
        (size_t)snprintf(out + off, len - off,
                         "ClusterName=t\n"
                         "SlurmctldHost=localhost(127.0.0.1)\n"
                         "AuthType=auth/key\n"
                         "StateSaveLocation=%s\n"
                         "GresTypes=gpu\n"
                         "EnforcePartLimits=NO\n"
                         "SchedulerType=%s\n"
                         "PriorityType=priority/basic\n",
                         dir, s->backfill ? "sched/backfill" : "sched/builtin");
    for (size_t i = 0; i < s->nnodes; i++) {
        off +=
            (size_t)snprintf(out + off, len - off,
                             "NodeName=node%02zu CPUs=%u RealMemory=%" PRIu64,
                             i + 1, s->node[i].cpus, s->node[i].mem);
        if (s->node[i].gpus > 0)
            off += (size_t)snprintf(out + off, len - off, " Gres=gpu:%u",
                                    s->node[i].gpus);
        off += (size_t)snprintf(out + off, len - off, "\n");
    }
    off += (size_t)snprintf(out + off, len - off,
                            "PartitionName=all Nodes=node[01-%02zu] "
                            "Default=YES MaxTime=INFINITE PriorityTier=1\n"
                            "PartitionName=sub Nodes=%s MaxTime=INFINITE "
                            "PriorityTier=%u\n",
                            s->nnodes, s->sub, 1 + rnd(2));
}

static void make_scenario(struct scenario *s)
{
    static const uint32_t cpus[] = {2, 4, 8};
    static const uint64_t mem[] = {4000, 8000};
    size_t off = 0;

    s->nnodes = 1 + rnd(MAX_NODES);
    for (size_t i = 0; i < s->nnodes; i++)
        s->node[i] = (struct node_shape){cpus[rnd(3)], rnd(3), mem[rnd(2)]};
    s->backfill = rnd(4) > 0;
    for (size_t i = 0; i < s->nnodes; i++)
        if (rnd(2) || (i + 1 == s->nnodes && off == 0))
            off += (size_t)snprintf(s->sub + off, sizeof(s->sub) - off,
                                    "%snode%02zu", off ? "," : "", i + 1);
}

/* A job of random shape (in partition "all" or "sub"); 0 when the
 * controller refused it (it fits no node of its partition). */
static uint64_t submit_random(struct fx *f, time_t now, bool pending)
{
    static const int limits[] = {600, 3600, 7200, -1};
    json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "script", "#!/bin/sh\n",
                          "partition", rnd(3) ? "all" : "sub", "cpus_per_task",
                          1 + (int)rnd(4), "mem_mib", 500 * (1 + (int)rnd(8)));
    json_t *reply = NULL;
    struct err e;
    uint64_t id = 0;
    int lim = limits[rnd(4)];

    if (lim > 0)
        json_object_set_new(o, "time_limit_s", json_integer(lim));
    if (rnd(3) == 0)
        json_object_set_new(o, "gres", json_string(rnd(2) ? "gpu:1" : "gpu:2"));
    if (rnd(4) == 0)
        json_object_set_new(o, "nice", json_integer((int)rnd(200) - 100));
    if (pending && rnd(8) == 0)
        json_object_set_new(o, "hold", json_true());
    if (pending && rnd(10) == 0)
        json_object_set_new(o, "begin_time", json_integer(now + 3600));
    if (pending && rnd(6) == 0)
        json_object_set_new(o, "array", json_string(rnd(2) ? "0-3%2" : "0-2"));
    if (pending && rnd(5) == 0)
        json_object_set_new(o, "nodes", json_integer(2));
    if (jobs_submit(f->c->jobs, o, &alice, &reply, &e) == 0)
        id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
    json_decref(reply);
    json_decref(o);
    return id;
}

/* Start j on one node with room for it, as a pass would have; false when
 * none has room. */
static bool start_somewhere(struct fx *f, struct job *j, time_t start)
{
    const struct conf_part *cp = &f->conf->parts[j->part];
    struct err e;

    if (j->nodes != 1 || j->array_pending != NULL)
        return false;
    for (size_t k = 0; k < cp->n_nodes; k++) {
        size_t idx = cp->node_idx[k];
        struct node *n = nodes_get(f->c->nodes, idx);
        uint32_t gpus[4], ng = 0;
        if (n->cf->cpus - n->cpus_alloc < j->cpus_per_node ||
            n->cf->mem_mib - n->mem_alloc_mib < job_mem_per_node(j))
            continue;
        for (size_t p = 0; p < n->gpus.n && ng < j->gpus_per_node; p++)
            if (!nodes_gpu_used(n, n->gpus.v[p].index))
                gpus[ng++] = n->gpus.v[p].index;
        if (ng < j->gpus_per_node)
            continue;
        if (jobs_start_gpus(f->c->jobs, j, &idx, 1, ng ? gpus : NULL, start,
                            &e) < 0)
            fail_msg("start: %s", e.text);
        return true;
    }
    return false;
}

/* Suspended by an operator, as jobsusp.c's suspend leaves it. */
static void suspend(struct fx *f, struct job *j, time_t now)
{
    for (size_t i = 0; i < j->n_alloc; i++)
        nodes_release(f->c->nodes, j->alloc[i], j->cpus_per_node, 0);
    j->state = JOB_SUSPENDED;
    jobs_suspended_add(f->c->jobs, 1);
    j->suspend_time = now - (time_t)rnd(3000);
    j->susp_by = JOB_SUSP_ADMIN;
}

static json_t *held(uint64_t victim, const char *node, int cpus, int64_t mem)
{
    json_t *o = json_object();

    json_object_set_new(o, "victim", json_integer((json_int_t)victim));
    json_object_set_new(o, "restarts", json_integer(0));
    json_object_set_new(o, "node", json_string(node));
    json_object_set_new(o, "cpus", json_integer(cpus));
    json_object_set_new(o, "mem_mib", json_integer(mem));
    json_object_set_new(o, "gpus", json_array());
    return o;
}

/* A preemption hold of pending job p: one victim gone (no job has its
 * id), holding CPUs on a node, and with alive, a running victim too. */
static void add_hold(struct fx *f, struct job *p, const struct job *alive)
{
    const char *node = f->conf->nodes[rnd((uint32_t)f->conf->n_nodes)].name;
    json_t *res = json_array(), *o = json_object();
    struct err e;
    char *text;

    json_array_append_new(res, held(999999, node, 1 + (int)rnd(2), 500));
    if (alive != NULL)
        json_array_append_new(res, held(alive->id,
                                        f->conf->nodes[alive->alloc[0]].name,
                                        (int)alive->cpus_per_node,
                                        (int64_t)job_mem_per_node(alive)));
    json_object_set_new(o, "res", res);
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (loop_write(f->c->loop, &e) < 0 ||
        persist_hold_save(f->c->persist, p->id, -1, text, &e) < 0)
        fail_msg("hold: %s", e.text);
    free(text);
}

/* The key a job's start counts under: its array's, or its own id. */
static uint64_t key(const struct job *j)
{
    return j->array_job_id ? j->array_job_id : j->id;
}

static void key_add(uint64_t *set, size_t *n, uint64_t k)
{
    for (size_t i = 0; i < *n; i++)
        if (set[i] == k)
            return;
    if (*n < MAX_KEYS)
        set[(*n)++] = k;
}

static bool key_has(const uint64_t *set, size_t n, uint64_t k)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == k)
            return true;
    return false;
}

static void keys_text(const uint64_t *set, size_t n, char *out, size_t len)
{
    size_t off = 0;

    out[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(out + off, len - off, "%s%" PRIu64,
                                i ? "," : "", set[i]);
}

/* The running jobs of the scenario, and the pending ones (their ids). */
static void populate(struct fx *f, struct scenario *s, time_t now,
                     uint64_t *pend, size_t *npend, bool *holds)
{
    size_t nrun = rnd((uint32_t)(3 * s->nnodes + 1));
    struct job *alive = NULL;

    for (size_t i = 0; i < nrun; i++) {
        uint64_t id = submit_random(f, now, false);
        struct job *j = id ? jobs_find(f->c->jobs, id) : NULL;
        if (j != NULL && start_somewhere(f, j, now - 60 - (time_t)rnd(7200)))
            alive = j;
    }
    *npend = 1 + rnd(8);
    for (size_t i = 0; i < *npend; i++)
        pend[i] = submit_random(f, now, true);
    /* a job that waits on another that has not ended */
    if (alive != NULL && rnd(4) == 0) {
        char dep[64];
        json_t *o, *reply = NULL;
        struct err e;
        snprintf(dep, sizeof(dep), "afterok:%" PRIu64, alive->id);
        o = json_pack("{s:s, s:s}", "script", "#!/bin/sh\n", "dependency", dep);
        if (jobs_submit(f->c->jobs, o, &alice, &reply, &e) < 0)
            fail_msg("seed %" PRIu64 ": submit: %s", s->seed, e.text);
        json_decref(reply);
        json_decref(o);
    }
    *holds = false;
    for (size_t i = 0; i < *npend; i++) {
        struct job *p = pend[i] ? jobs_find(f->c->jobs, pend[i]) : NULL;
        if (p == NULL || p->array_pending != NULL || rnd(4) != 0)
            continue;
        add_hold(f, p, rnd(2) ? alive : NULL);
        *holds = true;
    }
}

/* After a restart (or none): nodes connected, some jobs suspended, the
 * payloads gone. */
static void prepare(struct fx *f, time_t now)
{
    struct err e;

    for (size_t i = 0; i < nodes_count(f->c->nodes); i++) {
        struct node *n = nodes_get(f->c->nodes, i);
        n->registered = true;
        n->conn = rnd(8) ? (struct conn *)&fake_conn : NULL;
    }
    if (loop_write(f->c->loop, &e) < 0)
        fail_msg("write: %s", e.text);
    for (struct job *j = jobs_first(f->c->jobs); j != NULL; j = j->next) {
        if (j->state == JOB_RUNNING && rnd(2) == 0)
            suspend(f, j, now);
        else if (j->state == JOB_RUNNING && rnd(2) == 0)
            j->suspended_s = (int64_t)rnd(4000); /* suspended before */
        if (persist_job_purge(f->c->persist, j->id, &e) < 0)
            fail_msg("purge: %s", e.text);
    }
}

/* What explain says of each pending job, against what the pass does. */
static void check(struct fx *f, const struct scenario *s, time_t now)
{
    uint64_t said[MAX_KEYS], did[MAX_KEYS], before[256];
    size_t nsaid = 0, ndid = 0, nbefore = 0;
    char a[512], b[512];

    prio_drv_sync(f->c->prio, now); /* as the pass does first */
    for (struct job *j = jobs_first(f->c->jobs); j != NULL; j = j->next) {
        json_t *o, *np;
        if (j->state != JOB_PENDING) {
            if (nbefore < 256)
                before[nbefore++] = j->id;
            continue;
        }
        o = explain_job(f->c->explain, j, now);
        np = json_object_get(o, "next_pass");
        if (json_is_true(json_object_get(np, "would_start")))
            key_add(said, &nsaid, key(j));
        json_decref(o);
    }
    sched_drv_want(f->c->sched);
    sched_drv_run(f->c->sched, now);
    for (struct job *j = jobs_first(f->c->jobs); j != NULL; j = j->next)
        if (j->state != JOB_PENDING && !key_has(before, nbefore, j->id))
            key_add(did, &ndid, key(j));
    bool same = nsaid == ndid;
    for (size_t i = 0; same && i < nsaid; i++)
        same = key_has(did, ndid, said[i]);
    if (!same) {
        keys_text(said, nsaid, a, sizeof(a));
        keys_text(did, ndid, b, sizeof(b));
        fail_msg("seed %" PRIu64 " (SLUICE_PASSMODEL_SEED=%" PRIu64
                 " SLUICE_PASSMODEL_N=1): explain said [%s] start, the pass "
                 "started [%s]",
                 s->seed, s->seed, a, b);
    }
}

/* fx_close without its rm -rf (a shell per scenario would be most of
 * the test's time): the state directory holds files only. */
static void close_fast(struct fx *f)
{
    DIR *d;
    struct dirent *de;

    if (strncmp(f->dir, "/dev/shm/", 9) != 0) {
        assert_int_equal(fx_close(f), 0);
        return;
    }
    ctld_destroy(f->c);
    conf_destroy(f->conf);
    event_base_free(f->base);
    assert_non_null(d = opendir(f->dir));
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            assert_int_equal(unlinkat(dirfd(d), de->d_name, 0), 0);
    closedir(d);
    assert_int_equal(rmdir(f->dir), 0);
    free(f);
}

static void scenario(uint64_t seed)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct scenario s = {.seed = seed};
    uint64_t pend[16];
    size_t npend;
    bool holds;
    char text[4096];
    time_t now = time(NULL);
    struct err e;

    rng_state = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    make_scenario(&s);
    /* in memory where there is a tmpfs: every commit fsyncs */
    strcpy(f->dir, "/dev/shm/sluice-test-passmodel.XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        assert_int_equal(fx_make_dir(f), 0);
    conf_text(&s, f->dir, text, sizeof(text));
    if (fx_open(f, text) < 0)
        fail_msg("seed %" PRIu64 ": configuration refused", seed);
    populate(f, &s, now, pend, &npend, &holds);
    if (holds) {
        /* the holds are restored from the database, as after a restart */
        if (persist_commit(f->c->persist, &e) < 0)
            fail_msg("commit: %s", e.text);
        ctld_destroy(f->c);
        fx_start(f);
    }
    prepare(f, now);
    check(f, &s, now);
    for (size_t i = 0; i < nodes_count(f->c->nodes); i++)
        nodes_get(f->c->nodes, i)->conn = NULL;
    close_fast(f);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);

    return v != NULL && *v != '\0' ? strtoull(v, NULL, 10) : def;
}

static void test_explain_predicts_the_pass(void **state)
{
    uint64_t seed = env_u64("SLUICE_PASSMODEL_SEED", 1);
    uint64_t n = env_u64("SLUICE_PASSMODEL_N", 1000);

    (void)state;
    for (uint64_t i = 0; i < n; i++)
        scenario(seed + i);
}

/* Pacing: the wait after a pass follows its CPU time, whatever its wall
 * time was (the driver measures only CPU for it). */
static void test_pace_follows_cpu_time(void **state)
{
    static const struct {
        int64_t end, cpu, now, want;
    } cases[] = {
        {1000000, 0, 1000001, 0},           /* nothing spent */
        {1000000, 5000, 1000001, 0},        /* cheap: 5 ms is the line */
        {1000000, 5001, 1000001, 20003},    /* over it: 4 x CPU from end */
        {1000000, 6000, 1010000, 14000},    /* partly waited already */
        {1000000, 6000, 1024000, 0},        /* waited out */
        {1000000, 6000, 1030000, 0},        /* long since */
        {1000000, 100000, 1000000, 400000}, /* a long pass: 0.4 s */
        {1000000, 6000, 999000, 25000},     /* a clock read before the end */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(
            sched_drv_pace_us(cases[i].end, cases[i].cpu, cases[i].now),
            cases[i].want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pace_follows_cpu_time),
        cmocka_unit_test(test_explain_predicts_the_pass),
    };
    log_set_level(LOG_LEVEL_ERROR);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
