/*
 * Resource limits in the controller, without sockets: a struct ctld on a
 * temporary state directory whose jobs all fall under one hand-built QOS
 * (the chain function the accounting model provides in the daemon).
 * Submit limits refuse with Slurm's name and numbers; run-time limits
 * hold jobs in the pass with Slurm's reason and let them go when a job
 * ends; usage follows every transition.
 */
#include <errno.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "ctld/acct/acct.h"
#include "ctld/ctld.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobs.h"
#include "ctld/sched/prio_drv.h"
#include "ctld/sched/prio_int.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "AccountingStorageEnforce=%s\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=72:00:00\n";

struct fx {
    char dir[64];
    struct conf *conf;
    struct event_base *base;
    struct ctld *c;
    struct limits qos;
};

static const struct auth_id alice = {1001, 1001};

/* Every job is in QOS dev_qos (f->qos), and nothing else applies. */
static int chain(void *arg, const struct job *j, struct limits_level *lv,
                 bool *deny, struct err *e)
{
    struct fx *f = arg;

    (void)j;
    (void)e;
    *deny = false;
    lv[0] = (struct limits_level){LIMITS_QOS, "dev_qos", NULL, &f->qos};
    return 1;
}

/* AccountingStorageEnforce has associations: alice needs one (account
 * root) in the accounting model to submit at all. */
static int add_alice(struct ctld *c)
{
    struct passwd *pw = getpwuid(alice.uid);
    char name[32];
    json_t *res = NULL;
    struct acct_req r = {.entity = "user", .flags = ACCT_REQ_ADMIN_LEVEL};
    struct err e;
    int rc;

    snprintf(name, sizeof(name), "%s", pw ? pw->pw_name : "1001");
    r.names = json_pack("[s]", name);
    r.set = json_pack("[{s:s, s:s, s:s}]", "key", "Account", "op", "=", "value",
                      "root");
    rc = acct_add(c->acct, &r, &res, &e);
    if (rc < 0)
        fprintf(stderr, "acct_add: %s\n", e.text);
    json_decref(res);
    json_decref(r.names);
    json_decref(r.set);
    return rc;
}

static int fx_setup(void **state, const char *enforce)
{
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];
    struct err e;

    strcpy(f->dir, "/tmp/sluice-test-limits.XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir, enforce);
    f->conf = conf_parse_string(text, "test.conf", NULL, &e);
    if (f->conf == NULL) {
        fprintf(stderr, "conf: %s\n", e.text);
        return -1;
    }
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    f->c = ctld_create(f->conf, NULL, f->base, &e);
    if (f->c == NULL) {
        fprintf(stderr, "ctld_create: %s\n", e.text);
        return -1;
    }
    sched_drv_unpaced(f->c->sched); /* outcomes independent of speed */
    if (add_alice(f->c) < 0)
        return -1;
    limits_init(&f->qos);
    jlimits_set_chain(f->c->limits, chain, f);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return fx_setup(state, "associations,limits,qos");
}

static int setup_no_qos(void **state)
{
    return fx_setup(state, "associations,limits");
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    ctld_destroy(f->c);
    conf_destroy(f->conf);
    event_base_free(f->base);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    free(f);
    return system(cmd) == 0 ? 0 : -1;
}

static uint64_t submit(struct fx *f, struct err *e)
{
    json_t *o = json_pack("{s:s, s:i}", "script", "#!/bin/sh\n", "time_limit_s",
                          600),
           *reply = NULL;
    uint64_t id = 0;

    err_clear(e);
    if (jobs_submit(f->c->jobs, o, &alice, &reply, e) == 0) {
        id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
        json_decref(reply);
    }
    json_decref(o);
    loop_flush(f->c->loop);
    return id;
}

static void test_max_submit_per_user(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id;

    f->qos.max_submit_jobs_pu = 3;
    for (int i = 0; i < 3; i++)
        assert_int_not_equal(submit(f, &e), 0);
    assert_int_equal(submit(f, &e), 0);
    assert_int_equal(errno, EDQUOT);
    assert_non_null(strstr(e.text, "QOSMaxSubmitJobPerUserLimit: "));
    assert_non_null(strstr(e.text, " has 3/3 jobs in dev_qos"));
    /* a cancelled job makes room */
    id = jobs_first(f->c->jobs)->id;
    assert_int_equal(
        jobs_cancel(f->c->jobs, jobs_find(f->c->jobs, id), 0, 0, &e), 0);
    assert_int_not_equal(submit(f, &e), 0);
}

static void test_max_jobs_per_user_held_and_released(void **state)
{
    struct fx *f = *state;
    const size_t node = 0;
    struct job_end end = {0, 0, 0, false};
    struct err e;
    uint64_t a, b;

    f->qos.max_jobs_pu = 1;
    a = submit(f, &e);
    b = submit(f, &e);
    assert_int_equal(
        jobs_start(f->c->jobs, jobs_find(f->c->jobs, a), &node, 1, 100, &e), 0);
    loop_want_pass(f->c->loop);
    loop_flush(f->c->loop);
    assert_string_equal(job_reason(jobs_find(f->c->jobs, b)),
                        "QOSMaxJobsPerUserLimit");
    /* the first ends: the next pass no longer holds the second by it */
    assert_int_equal(jobs_ended(f->c->jobs, jobs_find(f->c->jobs, a), &end, &e),
                     0);
    loop_flush(f->c->loop);
    assert_string_not_equal(job_reason(jobs_find(f->c->jobs, b)),
                            "QOSMaxJobsPerUserLimit");
}

/* A job requeued (preempted in REQUEUE mode) runs no more: it does not
 * hold the user's one running job of MaxJobsPerUser while it waits. */
static void test_requeued_job_runs_no_more(void **state)
{
    struct fx *f = *state;
    const size_t node = 0;
    struct job_end end = {0, 15, 0, false};
    struct err e;
    uint64_t a, b;
    struct job *j;

    f->qos.max_jobs_pu = 1;
    a = submit(f, &e);
    b = submit(f, &e);
    j = jobs_find(f->c->jobs, a);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, 100, &e), 0);
    assert_int_equal(jobs_preempt(f->c->jobs, j, b, true, 0, &e), 0);
    assert_int_equal(jobs_ended(f->c->jobs, j, &end, &e), 0);
    assert_int_equal(j->state, JOB_PENDING);
    loop_want_pass(f->c->loop);
    loop_flush(f->c->loop);
    assert_string_not_equal(job_reason(jobs_find(f->c->jobs, b)),
                            "QOSMaxJobsPerUserLimit");
}

/* Without "qos" in AccountingStorageEnforce, QOS limits do not apply. */
static void test_qos_not_enforced(void **state)
{
    struct fx *f = *state;
    struct err e;

    f->qos.max_submit_jobs_pu = 1;
    assert_int_not_equal(submit(f, &e), 0);
    assert_int_not_equal(submit(f, &e), 0);
}

/* acct_add of QOS name with one setting key=value. */
static void add_qos(struct fx *f, const char *name, const char *key,
                    const char *value)
{
    json_t *res = NULL;
    struct acct_req r = {.entity = "qos", .flags = ACCT_REQ_ADMIN_LEVEL};
    struct err e;

    r.names = json_pack("[s]", name);
    r.set =
        json_pack("[{s:s, s:s, s:s}]", "key", key, "op", "=", "value", value);
    if (acct_add(f->c->acct, &r, &res, &e) < 0)
        fail_msg("acct_add qos %s: %s", name, e.text);
    json_decref(res);
    json_decref(r.names);
    json_decref(r.set);
}

/* QOS Flags=NoDecay: the QOS's own usage is neither decayed by
 * PriorityDecayHalfLife nor reset by PriorityUsageResetPeriod; the
 * association's usage still is. */
static void test_qos_no_decay(void **state)
{
    struct fx *f = *state;
    struct prio_drv *p = f->c->prio;
    struct job j = {.account = "root",
                    .user_name = "alice",
                    .nodes = 1,
                    .cpus_per_node = 4,
                    .n_alloc = 1,
                    .part = 0};
    const time_t t0 = 1700000000, week = 7 * 86400;
    json_t *share, *q;
    size_t i, seen = 0;

    add_qos(f, "nd", "Flags", "NoDecay");
    add_qos(f, "dec", "UsageFactor", "1");
    /* 4 CPUs (billing: CPUs count 1) for 1000 s in each QOS */
    j.qos = "nd";
    prio_usage_charge(p, &j, t0 - 1000, t0);
    j.qos = "dec";
    prio_usage_charge(p, &j, t0 - 1000, t0);
    assert_true(prio_usage_no_decay(p, "qos:nd"));
    assert_false(prio_usage_no_decay(p, "qos:dec"));
    assert_false(prio_usage_no_decay(p, "root/alice"));
    /* one half-life (the default 7 days) later */
    p->last_calc = t0;
    p->ps.reset = FS_RESET_NONE;
    prio_drv_refresh(p, t0 + week);
    assert_float_equal(prio_usage_get(p, "root/alice"), 4000.0, 1e-9);
    assert_float_equal(prio_usage_get(p, "qos:nd"), 4000.0, 1e-9);
    assert_float_equal(prio_usage_get(p, "qos:dec"), 2000.0, 1e-9);
    share = prio_drv_share_json(p, NULL);
    json_array_foreach(json_object_get(share, "qos"), i, q)
    {
        const char *n = json_string_value(json_object_get(q, "name"));
        if (strcmp(n, "nd") == 0) {
            seen++;
            assert_true(json_is_true(json_object_get(q, "no_decay")));
            assert_float_equal(json_real_value(json_object_get(q, "raw_usage")),
                               4000.0, 1e-9);
        }
    }
    assert_int_equal(seen, 1);
    json_decref(share);
    /* a usage reset spares it too */
    p->ps.reset = FS_RESET_DAILY;
    p->next_reset = t0 + week + 1;
    prio_drv_refresh(p, t0 + week + 1);
    assert_float_equal(prio_usage_get(p, "root/alice"), 0.0, 1e-9);
    assert_float_equal(prio_usage_get(p, "qos:nd"), 4000.0, 1e-9);
    assert_float_equal(prio_usage_get(p, "qos:dec"), 0.0, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_max_submit_per_user, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_max_jobs_per_user_held_and_released, setup, teardown),
        cmocka_unit_test_setup_teardown(test_requeued_job_runs_no_more, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_qos_not_enforced, setup_no_qos,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_qos_no_decay, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
