/*
 * The limit engine: precedence of the chain, every reason name it gives
 * at submit and in a pass, and usage kept by charges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/limits.h"

/* Partition QOS "part_qos", job QOS "dev_qos", user association "1" of
 * zhangsan in account physics, its parent account "2" (science), root. */
static struct limits pq, jq, ua, aa, ra;
static struct limits_level levels[5];
static struct limits_usage *usage;

static int setup(void **state)
{
    (void)state;
    limits_init(&pq);
    limits_init(&jq);
    limits_init(&ua);
    limits_init(&aa);
    limits_init(&ra);
    levels[0] = (struct limits_level){LIMITS_QOS, "part_qos", NULL, &pq};
    levels[1] = (struct limits_level){LIMITS_QOS, "dev_qos", NULL, &jq};
    levels[2] = (struct limits_level){LIMITS_ASSOC, "physics", "1", &ua};
    levels[3] = (struct limits_level){LIMITS_ASSOC, "science", "2", &aa};
    levels[4] = (struct limits_level){LIMITS_ASSOC, "root", "3", &ra};
    usage = limits_usage_create();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    limits_usage_destroy(usage);
    return 0;
}

static struct limits_job job_of(const char *user, uint64_t gpus)
{
    struct limits_job j = {.user = user,
                           .account = "physics",
                           .wall_s = 3600,
                           .levels = levels,
                           .nlevels = 5};
    j.tres[LIMITS_TRES_CPU] = 2;
    j.tres[LIMITS_TRES_MEM] = 1000;
    j.tres[LIMITS_TRES_NODE] = 1;
    j.tres[LIMITS_TRES_BILLING] = 2;
    j.tres[LIMITS_TRES_GPU] = gpus;
    return j;
}

/* The reason a pass gives j, after `running` like jobs already run. */
static const char *pass_reason(const struct limits_job *j, size_t running)
{
    struct limits_charge *held[8];
    struct limits_pass *p = limits_pass_create(usage);
    size_t first, n, nc;
    const char *why = NULL;

    for (size_t i = 0; i < running; i++) {
        held[i] = limits_charge_create(usage, j);
        limits_charge_start(held[i]);
    }
    limits_pass_job(p, j, &first, &n);
    const struct sched_charge *ch = limits_pass_charges(p);
    struct sched_counter *cn = limits_pass_counters(p, &nc);
    for (size_t k = first; k < first + n && why == NULL; k++) {
        const struct sched_counter *c = &cn[ch[k].counter];
        if (c->used > c->capacity || ch[k].amount > c->capacity - c->used)
            why = c->reason;
    }
    limits_pass_destroy(p);
    for (size_t i = 0; i < running; i++)
        limits_charge_destroy(held[i]);
    return why;
}

/* The reason a submission is refused after `queued` like jobs. */
static const char *submit_reason(const struct limits_job *j, size_t queued,
                                 struct err *e)
{
    struct limits_charge *held[8];
    const char *why = NULL;

    for (size_t i = 0; i < queued; i++)
        held[i] = limits_charge_create(usage, j);
    if (limits_check_submit(usage, j, &why, e) == 0)
        assert_null(why);
    else
        assert_int_equal(errno, EDQUOT);
    for (size_t i = 0; i < queued; i++)
        limits_charge_destroy(held[i]);
    return why;
}

/* ---- precedence ---- */

static void test_part_qos_beats_job_qos(void **state)
{
    struct limits_level out[LIMITS_LEVEL_MAX];
    struct limits_job j = job_of("zhangsan", 0);

    (void)state;
    pq.max_jobs_pu = 5;
    jq.max_jobs_pu = 1;
    assert_int_equal(
        limits_chain(out, &levels[0], &levels[1], false, &levels[2], 3), 5);
    j.levels = out;
    assert_string_equal(out[0].name, "part_qos");
    assert_null(pass_reason(&j, 1)); /* 1 running, part QOS allows 5 */
    assert_string_equal(pass_reason(&j, 5), "QOSMaxJobsPerUserLimit");

    /* OverPartQOS on the job's QOS: its MaxJobsPerUser=1 decides */
    assert_int_equal(
        limits_chain(out, &levels[0], &levels[1], true, &levels[2], 3), 5);
    assert_string_equal(out[0].name, "dev_qos");
    assert_string_equal(pass_reason(&j, 1), "QOSMaxJobsPerUserLimit");
}

static void test_chain_shapes(void **state)
{
    struct limits_level out[LIMITS_LEVEL_MAX];
    struct limits_level many[LIMITS_LEVEL_MAX];

    (void)state;
    /* the same QOS as partition and job QOS counts once */
    assert_int_equal(
        limits_chain(out, &levels[1], &levels[1], false, &levels[2], 1), 2);
    assert_int_equal(limits_chain(out, NULL, &levels[1], false, NULL, 0), 1);
    for (size_t i = 0; i < LIMITS_LEVEL_MAX; i++)
        many[i] = levels[2];
    assert_int_equal(
        limits_chain(out, NULL, NULL, false, many, LIMITS_LEVEL_MAX - 1), -1);
    assert_int_equal(errno, EINVAL);
}

/* The first level that sets a limit decides: a looser QOS limit is not
 * tightened by the association's, and the user's association beats the
 * account's. */
static void test_first_set_wins(void **state)
{
    struct limits_job j = job_of("zhangsan", 0);
    struct err e;

    (void)state;
    jq.max_submit_jobs_pu = 3;
    ua.max_submit_jobs_pu = 1;
    assert_null(submit_reason(&j, 2, &e));
    assert_string_equal(submit_reason(&j, 3, &e),
                        "QOSMaxSubmitJobPerUserLimit");

    jq.max_submit_jobs_pu = LIMITS_UNSET;
    ua.max_submit_jobs_pu = 4;
    aa.max_submit_jobs_pu = 1; /* the account's MaxSubmitJobs: ignored */
    assert_null(submit_reason(&j, 3, &e));
    assert_string_equal(submit_reason(&j, 4, &e), "AssocMaxSubmitJobLimit");
    assert_string_equal(e.text, "AssocMaxSubmitJobLimit: zhangsan has 4/4 "
                                "jobs in account physics");

    /* unset on the user's association: the account's applies to it */
    ua.max_submit_jobs_pu = LIMITS_UNSET;
    assert_string_equal(submit_reason(&j, 1, &e), "AssocMaxSubmitJobLimit");
}

/* Grp* limits: a QOS's decides; without one, every association's holds
 * against its own usage (the account's counts all its users). */
static void test_grp_limits(void **state)
{
    struct limits_job a = job_of("zhangsan", 1), b = job_of("lisi", 1);
    struct limits_charge *held;
    struct err e;

    (void)state;
    aa.grp_jobs = 1; /* science, for every user below it */
    ua.grp_jobs = 5;
    held = limits_charge_create(usage, &b);
    limits_charge_start(held);
    assert_string_equal(pass_reason(&a, 0), "AssocGrpJobsLimit");
    limits_charge_destroy(held);
    assert_null(pass_reason(&a, 0));

    jq.grp_jobs = 2; /* a QOS sets it: the associations' are not used */
    assert_null(pass_reason(&a, 1));
    assert_string_equal(pass_reason(&a, 2), "QOSGrpJobsLimit");

    aa.grp_submit_jobs = 2;
    assert_string_equal(submit_reason(&a, 2, &e), "AssocGrpSubmitJobsLimit");
    assert_string_equal(
        e.text, "AssocGrpSubmitJobsLimit: account science has 2/2 jobs");
}

/* ---- every reason name ---- */

enum fld {
    F_SUBMIT_PU,
    F_SUBMIT_PA,
    F_GRP_SUBMIT,
    F_JOBS_PU,
    F_JOBS_PA,
    F_GRP_JOBS,
    F_WALL,
    F_TRES_PJ,
    F_TRES_PU,
    F_GRP_TRES,
};

static void set(struct limits *l, enum fld f, int t, uint64_t v)
{
    switch (f) {
    case F_SUBMIT_PU:
        l->max_submit_jobs_pu = v;
        break;
    case F_SUBMIT_PA:
        l->max_submit_jobs_pa = v;
        break;
    case F_GRP_SUBMIT:
        l->grp_submit_jobs = v;
        break;
    case F_JOBS_PU:
        l->max_jobs_pu = v;
        break;
    case F_JOBS_PA:
        l->max_jobs_pa = v;
        break;
    case F_GRP_JOBS:
        l->grp_jobs = v;
        break;
    case F_WALL:
        l->max_wall_s = v;
        break;
    case F_TRES_PJ:
        l->max_tres_per_job[t] = v;
        break;
    case F_TRES_PU:
        l->max_tres_per_user[t] = v;
        break;
    case F_GRP_TRES:
        l->grp_tres[t] = v;
        break;
    }
}

struct reason_case {
    bool qos; /* set on the job's QOS, else on the user's association */
    enum fld f;
    int tres;
    uint64_t value;
    bool submit; /* a submit-time limit (else run time) */
    const char *reason;
};

/* Each job asks for cpu=2 mem=1000 node=1 billing=2 gres/gpu=2, 1 h; one
 * like it is already queued (submit) or running (run time). */
static const struct reason_case reasons[] = {
    {true, F_SUBMIT_PU, 0, 1, true, "QOSMaxSubmitJobPerUserLimit"},
    {true, F_SUBMIT_PA, 0, 1, true, "QOSMaxSubmitJobPerAccountLimit"},
    {true, F_GRP_SUBMIT, 0, 1, true, "QOSGrpSubmitJobsLimit"},
    {false, F_SUBMIT_PU, 0, 1, true, "AssocMaxSubmitJobLimit"},
    {false, F_GRP_SUBMIT, 0, 1, true, "AssocGrpSubmitJobsLimit"},
    {true, F_JOBS_PU, 0, 1, false, "QOSMaxJobsPerUserLimit"},
    {true, F_JOBS_PA, 0, 1, false, "QOSMaxJobsPerAccountLimit"},
    {true, F_GRP_JOBS, 0, 1, false, "QOSGrpJobsLimit"},
    {false, F_JOBS_PU, 0, 1, false, "AssocMaxJobsLimit"},
    {false, F_GRP_JOBS, 0, 1, false, "AssocGrpJobsLimit"},
    {true, F_WALL, 0, 60, false, "QOSMaxWallDurationPerJobLimit"},
    {false, F_WALL, 0, 60, false, "AssocMaxWallDurationPerJobLimit"},
    {true, F_TRES_PJ, LIMITS_TRES_CPU, 1, false, "QOSMaxCpuPerJobLimit"},
    {true, F_TRES_PJ, LIMITS_TRES_MEM, 999, false, "QOSMaxMemoryPerJob"},
    {true, F_TRES_PJ, LIMITS_TRES_NODE, 0, false, "QOSMaxNodePerJobLimit"},
    {true, F_TRES_PJ, LIMITS_TRES_BILLING, 1, false, "QOSMaxBillingPerJob"},
    {true, F_TRES_PJ, LIMITS_TRES_GPU, 1, false, "QOSMaxGRESPerJob"},
    {false, F_TRES_PJ, LIMITS_TRES_CPU, 1, false, "AssocMaxCpuPerJobLimit"},
    {false, F_TRES_PJ, LIMITS_TRES_MEM, 999, false, "AssocMaxMemPerJob"},
    {false, F_TRES_PJ, LIMITS_TRES_NODE, 0, false, "AssocMaxNodePerJobLimit"},
    {false, F_TRES_PJ, LIMITS_TRES_BILLING, 1, false, "AssocMaxBillingPerJob"},
    {false, F_TRES_PJ, LIMITS_TRES_GPU, 1, false, "AssocMaxGRESPerJob"},
    {true, F_TRES_PU, LIMITS_TRES_CPU, 3, false, "QOSMaxCpuPerUserLimit"},
    {true, F_TRES_PU, LIMITS_TRES_MEM, 1999, false, "QOSMaxMemoryPerUser"},
    {true, F_TRES_PU, LIMITS_TRES_NODE, 1, false, "QOSMaxNodePerUserLimit"},
    {true, F_TRES_PU, LIMITS_TRES_BILLING, 3, false, "QOSMaxBillingPerUser"},
    {true, F_TRES_PU, LIMITS_TRES_GPU, 3, false, "QOSMaxGRESPerUser"},
    {true, F_GRP_TRES, LIMITS_TRES_CPU, 3, false, "QOSGrpCpuLimit"},
    {true, F_GRP_TRES, LIMITS_TRES_MEM, 1999, false, "QOSGrpMemLimit"},
    {true, F_GRP_TRES, LIMITS_TRES_NODE, 1, false, "QOSGrpNodeLimit"},
    {true, F_GRP_TRES, LIMITS_TRES_BILLING, 3, false, "QOSGrpBilling"},
    {true, F_GRP_TRES, LIMITS_TRES_GPU, 3, false, "QOSGrpGRES"},
    {false, F_GRP_TRES, LIMITS_TRES_CPU, 3, false, "AssocGrpCpuLimit"},
    {false, F_GRP_TRES, LIMITS_TRES_MEM, 1999, false, "AssocGrpMemLimit"},
    {false, F_GRP_TRES, LIMITS_TRES_NODE, 1, false, "AssocGrpNodeLimit"},
    {false, F_GRP_TRES, LIMITS_TRES_BILLING, 3, false, "AssocGrpBilling"},
    {false, F_GRP_TRES, LIMITS_TRES_GPU, 3, false, "AssocGrpGRES"},
};

static void test_each_reason(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        const struct reason_case *c = &reasons[i];
        struct limits_job j = job_of("zhangsan", 2);
        struct err e;
        bool per_job = c->f == F_WALL || c->f == F_TRES_PJ;

        teardown(NULL); /* a fresh world for each case */
        setup(NULL);
        set(c->qos ? &jq : &ua, c->f, c->tres, c->value);
        if (c->submit) {
            assert_null(submit_reason(&j, 0, &e));
            assert_string_equal(submit_reason(&j, 1, &e), c->reason);
            assert_null(pass_reason(&j, 0));
        } else {
            /* a per-job limit holds the job alone; the others need one
             * like it running first */
            assert_null(submit_reason(&j, 5, &e));
            if (!per_job)
                assert_null(pass_reason(&j, 0));
            assert_string_equal(pass_reason(&j, 1), c->reason);
            /* DenyOnLimit: what the job alone can never meet is refused */
            j.deny_on_limit = true;
            if (per_job || c->f == F_TRES_PU || c->f == F_GRP_TRES) {
                const char *r = submit_reason(&j, 0, &e);
                if (per_job)
                    assert_string_equal(r, c->reason);
                else
                    assert_null(r); /* 2 fits under 3 alone */
            }
        }
    }
}

static void test_deny_messages(void **state)
{
    struct limits_job j = job_of("zhangsan", 4);
    struct err e;

    (void)state;
    j.deny_on_limit = true;
    jq.grp_tres[LIMITS_TRES_GPU] = 2;
    assert_string_equal(submit_reason(&j, 0, &e), "QOSGrpGRES");
    assert_string_equal(e.text, "QOSGrpGRES: job asks for gres/gpu=4, "
                                "dev_qos allows gres/gpu=2 in all");
    jq.max_wall_s = 24 * 3600;
    j.wall_s = 25 * 3600;
    assert_string_equal(submit_reason(&j, 0, &e),
                        "QOSMaxWallDurationPerJobLimit");
    assert_string_equal(e.text,
                        "QOSMaxWallDurationPerJobLimit: time limit 1-01:00:00 "
                        "is over the MaxWall 1-00:00:00 of dev_qos");
    assert_int_equal(limits_max_wall(&j), 24 * 3600);
    jq.max_submit_jobs_pu = 3;
    assert_string_equal(submit_reason(&j, 3, &e),
                        "QOSMaxSubmitJobPerUserLimit");
    assert_string_equal(e.text, "QOSMaxSubmitJobPerUserLimit: zhangsan has "
                                "3/3 jobs in dev_qos");
}

/* Usage follows every transition, and two pending jobs of one user share
 * one counter. */
static void test_usage_and_shared_counters(void **state)
{
    struct limits_job j = job_of("zhangsan", 1);
    struct limits_charge *a, *b;
    struct limits_count n;
    struct limits_pass *p;
    size_t fa, na, fb, nb, nc;

    (void)state;
    a = limits_charge_create(usage, &j);
    b = limits_charge_create(usage, &j);
    limits_charge_start(a);
    limits_charge_start(a); /* again: no change */
    limits_usage_get(usage, LIMITS_QOS, "dev_qos", "zhangsan", NULL, &n);
    assert_int_equal(n.submitted, 2);
    assert_int_equal(n.running, 1);
    assert_int_equal(n.tres[LIMITS_TRES_GPU], 1);
    limits_usage_get(usage, LIMITS_ASSOC, "2", NULL, NULL, &n);
    assert_int_equal(n.submitted, 2); /* the parent account counts them */
    limits_usage_get(usage, LIMITS_QOS, "dev_qos", NULL, "physics", &n);
    assert_int_equal(n.running, 1);

    jq.max_jobs_pu = 2;
    p = limits_pass_create(usage);
    limits_pass_job(p, &j, &fa, &na);
    limits_pass_job(p, &j, &fb, &nb);
    assert_int_equal(na, 1);
    assert_int_equal(nb, 1);
    assert_int_equal(limits_pass_charges(p)[fa].counter,
                     limits_pass_charges(p)[fb].counter);
    assert_int_equal(limits_pass_counters(p, &nc)[0].used, 1);
    assert_int_equal(limits_pass_counters(p, &nc)[0].capacity, 2);
    limits_pass_destroy(p);

    limits_charge_stop(a); /* requeued */
    limits_usage_get(usage, LIMITS_QOS, "dev_qos", NULL, NULL, &n);
    assert_int_equal(n.running, 0);
    assert_int_equal(n.tres[LIMITS_TRES_GPU], 0);
    assert_int_equal(n.submitted, 2);
    limits_charge_start(b);
    limits_charge_destroy(b); /* ends while running */
    limits_charge_destroy(a);
    limits_charge_destroy(NULL);
    limits_usage_get(usage, LIMITS_QOS, "part_qos", NULL, NULL, &n);
    assert_int_equal(n.submitted + n.running, 0);
    limits_usage_get(usage, LIMITS_QOS, "nosuch", NULL, NULL, &n);
    assert_int_equal(n.submitted, 0);
}

/* What a pass's counter says for people: who it counts, with the use and
 * capacity, for each kind of level; nothing for a limit never met. */
static void test_describe(void **state)
{
    static const struct {
        uint64_t *field;
        uint64_t value;
        const char *want;
    } cases[] = {
        {&jq.max_jobs_pu, 1, "user zhangsan in dev_qos has 1/1 jobs running"},
        {&jq.max_jobs_pa, 1, "account physics in dev_qos has 1/1 jobs running"},
        {&pq.grp_jobs, 1, "part_qos has 1/1 jobs running"},
        {&jq.grp_tres[LIMITS_TRES_GPU], 2, "dev_qos has gres/gpu=2/2 in use"},
        {&aa.max_jobs_pu, 1,
         "user zhangsan in account physics has 1/1 jobs running"},
        {&aa.grp_jobs, 1, "account science has 1/1 jobs running"},
        {&jq.max_wall_s, 60, ""},
    };
    struct limits_job j = job_of("zhangsan", 2);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct limits_charge *held = limits_charge_create(usage, &j);
        struct limits_pass *p = limits_pass_create(usage);
        size_t first, n;
        char buf[200];

        *cases[i].field = cases[i].value;
        limits_charge_start(held);
        limits_pass_job(p, &j, &first, &n);
        assert_int_equal(n, 1);
        limits_pass_describe(p, limits_pass_charges(p)[first].counter, buf,
                             sizeof(buf));
        assert_string_equal(buf, cases[i].want);
        limits_pass_destroy(p);
        limits_charge_destroy(held);
        *cases[i].field = LIMITS_UNSET;
    }
}

/* Many names: the tables grow and keep every entry. */
static void test_many_names(void **state)
{
    struct limits_charge *c[500];
    struct limits_level lv[2] = {
        {LIMITS_QOS, "q", NULL, &jq},
        {LIMITS_ASSOC, "a", NULL, &ua},
    };
    char users[500][16];
    struct limits_count n;

    (void)state;
    for (size_t i = 0; i < 500; i++) {
        struct limits_job j = job_of(users[i], 1);
        snprintf(users[i], sizeof(users[i]), "user%zu", i);
        j.levels = lv;
        j.nlevels = 2;
        c[i] = limits_charge_create(usage, &j);
        limits_charge_start(c[i]);
    }
    limits_usage_get(usage, LIMITS_QOS, "q", "user321", NULL, &n);
    assert_int_equal(n.running, 1);
    limits_usage_get(usage, LIMITS_QOS, "q", NULL, NULL, &n);
    assert_int_equal(n.running, 500);
    for (size_t i = 0; i < 500; i++)
        limits_charge_destroy(c[i]);
    limits_usage_get(usage, LIMITS_ASSOC, "a", NULL, NULL, &n);
    assert_int_equal(n.submitted, 0);
}

/* sacctmgr's limit keys on a QOS and an association (limits_set_key),
 * and AccountingStorageEnforce's words. */
static void test_set_key(void **state)
{
    static const struct {
        bool qos;
        const char *key, *val;
        int rc;
        size_t field; /* offsetof the uint64_t set, or a TRES below */
        int tres;     /* -1: field; else index into grp_tres */
        uint64_t want;
    } cases[] = {
        {true, "MaxJobsPerUser", "2", 1, offsetof(struct limits, max_jobs_pu),
         -1, 2},
        {true, "maxjobspu", "-1", 1, offsetof(struct limits, max_jobs_pu), -1,
         LIMITS_UNSET},
        {false, "MaxJobs", "3", 1, offsetof(struct limits, max_jobs_pu), -1, 3},
        {false, "MaxJobsPerUser", "3", 0, 0, -1, 0}, /* a QOS key only */
        {true, "MaxSubmitPU", "5", 1,
         offsetof(struct limits, max_submit_jobs_pu), -1, 5},
        {true, "MaxWall", "1-00:00:00", 1, offsetof(struct limits, max_wall_s),
         -1, 86400},
        {true, "MaxWall", "INFINITE", 1, offsetof(struct limits, max_wall_s),
         -1, LIMITS_UNSET},
        {true, "GrpTRES", "gres/gpu=2,mem=1G", 1, 0, LIMITS_TRES_GPU, 2},
        {true, "GrpTRES", "mem=1G", 1, 0, LIMITS_TRES_MEM, 1024},
        {true, "GrpJobs", "many", -1, 0, -1, 0},
        {true, "GrpTRES", "disk=2", -1, 0, -1, 0},
        {true, "GrpTRES", "gpu", -1, 0, -1, 0},
        {true, "Priority", "5", 0, 0, -1, 0}, /* not a limit */
    };
    struct limits l;
    struct err e;
    bool lim, qos;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        limits_init(&l);
        int rc = limits_set_key(&l, cases[i].qos, cases[i].key, "=",
                                cases[i].val, &e);
        if (rc != cases[i].rc)
            fail_msg("case %zu: %s=%s: rc %d, want %d", i, cases[i].key,
                     cases[i].val, rc, cases[i].rc);
        if (rc < 0) {
            assert_int_equal(errno, EINVAL);
            assert_non_null(strstr(e.text, cases[i].key));
            continue;
        }
        if (rc == 0)
            continue;
        if (cases[i].tres >= 0)
            assert_int_equal(l.grp_tres[cases[i].tres], cases[i].want);
        else
            assert_int_equal(*(uint64_t *)((char *)&l + cases[i].field),
                             cases[i].want);
    }
    limits_init(&l);
    assert_int_equal(limits_set_key(&l, true, "GrpJobs", "+=", "1", &e), -1);
    limits_enforce_parse("associations,limits,qos", &lim, &qos);
    assert_true(lim && qos);
    limits_enforce_parse("safe", &lim, &qos);
    assert_true(lim && !qos);
    limits_enforce_parse("qos", &lim, &qos);
    assert_true(!lim && !qos);
    limits_enforce_parse(NULL, &lim, &qos);
    assert_true(!lim && !qos);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_part_qos_beats_job_qos, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_chain_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_set_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grp_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deny_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_describe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_usage_and_shared_counters, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_many_names, setup, teardown),
        cmocka_unit_test(test_set_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
