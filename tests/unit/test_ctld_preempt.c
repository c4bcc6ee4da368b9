/*
 * The preemption driver's exempt times (security audit finding 15): a job
 * of a QOS with Flags=ExemptUntilCheckpoint that never checkpoints is
 * exempt for at most PreemptParameters=exempt_until_checkpoint_max (by
 * default 4 x its PreemptExemptTime, or an hour without one), not for
 * ever; after a checkpoint its PreemptExemptTime applies as before.
 */
#include <errno.h>

#include "ctld_inproc.h"

#include "common/timefmt.h"
#include "ctld/acct/acct.h"
#include "ctld/sched/preempt_drv.h"
#include "sched/preempt_policy.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "PreemptType=preempt/qos\n"
    "PreemptMode=REQUEUE\n"
    "PreemptExemptTime=00:05:00\n"
    "%s"
    "NodeName=node01 CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node01 Default=YES MaxTime=INFINITE\n";

/* A controller with extra configuration lines, and QOS ck
 * (ExemptUntilCheckpoint, the global exempt time), ck10
 * (ExemptUntilCheckpoint, PreemptExemptTime=10:00), ck0
 * (ExemptUntilCheckpoint, PreemptExemptTime=0) and plain. */
static struct fx *open_with(const char *extra)
{
    static const char *const qos[][3] = {
        {"ck", "Flags", "ExemptUntilCheckpoint"},
        {"ck10", "PreemptExemptTime", "10:00"},
        {"ck0", "PreemptExemptTime", "0"},
        {"plain", "Priority", "1"},
    };
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];

    assert_non_null(f);
    assert_int_equal(fx_make_dir(f), 0);
    snprintf(text, sizeof(text), conf_fmt, f->dir, extra);
    assert_int_equal(fx_open(f, text), 0);
    for (size_t i = 0; i < sizeof(qos) / sizeof(qos[0]); i++) {
        struct acct_req r = {.entity = "qos", .flags = ACCT_REQ_ADMIN_LEVEL};
        json_t *res = NULL;
        struct err e;
        r.names = json_pack("[s]", qos[i][0]);
        r.set = json_pack("[{s:s, s:s, s:s}]", "key", qos[i][1], "op", "=",
                          "value", qos[i][2]);
        if (strcmp(qos[i][0], "plain") != 0)
            json_array_append_new(r.set, json_pack("{s:s, s:s, s:s}", "key",
                                                   "Flags", "op", "=", "value",
                                                   "ExemptUntilCheckpoint"));
        if (acct_add(f->c->acct, &r, &res, &e) < 0)
            fail_msg("qos %s: %s", qos[i][0], e.text);
        json_decref(res);
        json_decref(r.names);
        json_decref(r.set);
    }
    return f;
}

/* When a job of qos that started at 1000 (checkpointed at ckpt, 0:
 * never) may first be preempted. */
static time_t until(struct fx *f, const char *qos, time_t ckpt)
{
    struct preempt_drv *p = preempt_drv_create(&(struct preempt_drv_src){
        .conf = f->c->conf,
        .base = f->c->base,
        .loop = f->c->loop,
        .persist = f->c->persist,
        .acct = f->c->acct,
        .parts = f->c->parts,
        .nodes = f->c->nodes,
        .jobs = f->c->jobs,
        .nodecmd = f->c->nodecmd,
    });
    struct job j = {.qos = (char *)qos,
                    .start_time = 1000,
                    .last_checkpoint = ckpt,
                    .state = JOB_RUNNING};
    time_t t = preempt_drv_exempt_until(p, &j);

    preempt_drv_destroy(p);
    return t;
}

static void test_default_cap(void **state)
{
    struct fx *f = open_with("");

    (void)state;
    /* without a checkpoint: 4 x the exempt time, not for ever */
    assert_int_equal(until(f, "ck", 0), 1000 + 4 * 300);
    assert_int_equal(until(f, "ck10", 0), 1000 + 4 * 600);
    assert_int_equal(until(f, "ck0", 0), 1000 + 3600);
    /* after one: the exempt time, as before */
    assert_int_equal(until(f, "ck", 1100), 1000 + 300);
    assert_int_equal(until(f, "plain", 0), 1000 + 300);
    assert_int_equal(fx_close(f), 0);
}

static void test_configured_cap(void **state)
{
    struct fx *f = open_with("PreemptParameters=youngest_first,"
                             "exempt_until_checkpoint_max=2:00:00\n");

    (void)state;
    assert_int_equal(until(f, "ck", 0), 1000 + 7200);
    assert_int_equal(until(f, "ck0", 0), 1000 + 7200);
    assert_int_equal(until(f, "ck", 1100), 1000 + 300);
    assert_int_equal(fx_close(f), 0);
    /* INFINITE: the old behaviour, for a site that wants it */
    f = open_with("PreemptParameters=exempt_until_checkpoint_max=INFINITE\n");
    assert_int_equal(until(f, "ck", 0), (time_t)INT64_MAX);
    assert_int_equal(fx_close(f), 0);
}

static void test_parse(void **state)
{
    int64_t v;
    struct err e;

    (void)state;
    assert_int_equal(preempt_ckpt_exempt_max("", &v, &e), 0);
    assert_int_equal(v, -1);
    assert_int_equal(preempt_ckpt_exempt_max(
                         "strict_order,exempt_until_checkpoint_max=30", &v, &e),
                     0);
    assert_int_equal(v, 1800); /* minutes, as Slurm's times */
    assert_int_equal(
        preempt_ckpt_exempt_max("exempt_until_checkpoint_max=soon", &v, &e),
        -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "exempt_until_checkpoint_max=soon"));
    assert_int_equal(v, -1);
}

int main(void)
{
    (void)fx_submit;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_cap),
        cmocka_unit_test(test_configured_cap),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
