/*
 * The simulator's engine (src/sim/sim.c and friends) on small clusters,
 * one behaviour each, with the times worked out by hand: first come first
 * served and backfill, a time limit, priorities by QOS, a QOS limit,
 * preemption (at once, after the exempt time, after the grace time) with
 * the GPU-seconds it loses, and jobs that can never start, with why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sim/acct.h"
#include "sim/sim.h"

#define BASE                                                                   \
    "ClusterName=t\nSlurmctldHost=m\nGresTypes=gpu\n"                          \
    "NodeName=n1 CPUs=16 RealMemory=64000 Gres=gpu:4\n"

struct tj {
    time_t submit;
    int64_t run, limit;
    const char *part, *user, *qos;
    uint32_t nodes, cpus, gpus;
};

struct run {
    struct conf *conf;
    struct sim_trace t;
    struct sim_acct a;
    struct sim_result r;
};

/* Jobs tj (n) on the configuration text, with QOS lines qos (NULL). */
static void run(struct run *x, const char *conf, const char *qos,
                const struct tj *tj, size_t n, bool grace)
{
    struct err e;
    struct sim_opts o = {.use_grace = grace};

    memset(x, 0, sizeof(*x));
    x->conf = conf_parse_string(conf, "t.conf", NULL, &e);
    if (x->conf == NULL)
        fail_msg("%s", e.text);
    sim_acct_init(&x->a);
    if (qos != NULL && sim_acct_load(&x->a, qos, strlen(qos), "q", &e) < 0)
        fail_msg("%s", e.text);
    sim_trace_init(&x->t, "t");
    for (size_t i = 0; i < n; i++) {
        struct sim_job_in *j = sim_trace_add(&x->t);
        j->id = i + 1;
        j->line = (uint32_t)i + 1;
        j->submit = tj[i].submit;
        j->run_s = tj[i].run;
        j->limit_s = tj[i].limit;
        j->part = sim_trace_intern(&x->t, tj[i].part);
        j->user = sim_trace_intern(&x->t, tj[i].user ? tj[i].user : "u");
        j->qos = sim_trace_intern(&x->t, tj[i].qos);
        j->nodes = tj[i].nodes ? tj[i].nodes : 1;
        j->cpus_per_node = tj[i].cpus ? tj[i].cpus : 1;
        j->gpus_per_node = tj[i].gpus;
    }
    o.conf = x->conf;
    if (sim_run(&o, &x->t, &x->a, &x->r, &e) < 0)
        fail_msg("%s", e.text);
}

static void done(struct run *x)
{
    sim_result_free(&x->r);
    sim_trace_free(&x->t);
    sim_acct_free(&x->a);
    conf_destroy(x->conf);
}

static time_t start_of(const struct run *x, size_t i)
{
    return x->r.jobs[i].runs > 0 ? x->r.jobs[i].first_start : -1;
}

/* A takes 8 CPUs for 100 s, B wants all 16, C 8 for at most 50 s. */
static const struct tj bf_jobs[] = {
    {0, 100, 100, NULL, NULL, NULL, 1, 8, 0},
    {1, 10, 100, NULL, NULL, NULL, 1, 16, 0},
    {2, 40, 50, NULL, NULL, NULL, 1, 8, 0},
};

static void test_backfill(void **state)
{
    struct run x;

    (void)state;
    /* backfill: C fits before B's reservation at 100 */
    run(&x,
        BASE "SchedulerType=sched/backfill\n"
             "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n",
        NULL, bf_jobs, 3, false);
    assert_int_equal(start_of(&x, 0), 0);
    assert_int_equal(start_of(&x, 1), 100);
    assert_int_equal(start_of(&x, 2), 2);
    assert_int_equal(x.r.jobs[2].end_time, 42);
    done(&x);
    /* builtin: C waits behind B */
    run(&x,
        BASE "SchedulerType=sched/builtin\n"
             "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n",
        NULL, bf_jobs, 3, false);
    assert_int_equal(start_of(&x, 1), 100);
    assert_int_equal(start_of(&x, 2), 110);
    done(&x);
}

static void test_timeout_and_priority(void **state)
{
    static const char qos[] = "QOS - 'hi':Priority=1000\n"
                              "QOS - 'lo':Priority=10\n";
    static const struct tj jobs[] = {
        {0, 500, 50, NULL, NULL, NULL, 1, 16, 0},
        {1, 10, 100, NULL, NULL, "lo", 1, 16, 0},
        {2, 10, 100, NULL, NULL, "hi", 1, 16, 0},
    };
    struct run x;

    (void)state;
    run(&x,
        BASE "PriorityType=priority/multifactor\nPriorityWeightQOS=1000\n"
             "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n",
        qos, jobs, 3, false);
    /* killed at its limit */
    assert_int_equal(x.r.jobs[0].end, SIM_END_TIMEOUT);
    assert_int_equal(x.r.jobs[0].end_time, 50);
    /* the later job of the higher QOS first */
    assert_int_equal(start_of(&x, 2), 50);
    assert_int_equal(start_of(&x, 1), 60);
    assert_int_equal(x.r.jobs[1].end, SIM_END_DONE);
    assert_string_equal(x.r.jobs[2].qos, "hi");
    done(&x);
}

static void test_limit(void **state)
{
    static const char qos[] = "QOS - 'one':MaxJobsPerUser=1\n";
    static const struct tj jobs[] = {
        {0, 30, 0, NULL, "a", "one", 1, 1, 0},
        {0, 30, 0, NULL, "a", "one", 1, 1, 0},
        {0, 30, 0, NULL, "b", "one", 1, 1, 0},
    };
    struct run x;

    (void)state;
    run(&x,
        BASE "AccountingStorageEnforce=associations,limits,qos\n"
             "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n",
        qos, jobs, 3, false);
    assert_int_equal(start_of(&x, 0), 0);
    assert_int_equal(start_of(&x, 1), 30);
    assert_int_equal(start_of(&x, 2), 0);
    done(&x);
    /* not enforced: all at once */
    run(&x, BASE "PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n", qos,
        jobs, 3, false);
    assert_int_equal(start_of(&x, 1), 0);
    done(&x);
}

#define PREEMPT                                                                \
    BASE "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"           \
         "PartitionName=prod Nodes=n1 MaxTime=INFINITE Priority=100\n"         \
         "PartitionName=dev Nodes=n1 Default=YES MaxTime=INFINITE "            \
         "Priority=10 GraceTime=30\n"

/* D holds the node's 4 GPUs for 1000 s from 0; P wants 2 at 100. */
static const struct tj pre_jobs[] = {
    {0, 1000, 0, "dev", NULL, NULL, 1, 4, 4},
    {100, 50, 0, "prod", NULL, NULL, 1, 2, 2},
};

static void test_preempt(void **state)
{
    struct run x;

    (void)state;
    run(&x, PREEMPT, NULL, pre_jobs, 2, false);
    assert_int_equal(start_of(&x, 1), 100);
    assert_int_equal(x.r.jobs[0].preempted, 1);
    assert_int_equal(x.r.jobs[0].runs, 2);
    assert_int_equal(x.r.jobs[0].lost_gpu_s, 4 * 100);
    /* requeued: it runs again, whole, when P is done */
    assert_int_equal(x.r.jobs[0].end_time, 150 + 1000);
    assert_int_equal(x.r.jobs[0].end, SIM_END_DONE);
    assert_int_equal(x.r.npre, 1);
    assert_int_equal(x.r.pre[0].victim, 0);
    assert_int_equal(x.r.pre[0].by, 1);
    assert_int_equal(x.r.nstarts, 3);
    done(&x);
    /* the victim uses its grace time: P waits for it */
    run(&x, PREEMPT, NULL, pre_jobs, 2, true);
    assert_int_equal(start_of(&x, 1), 130);
    done(&x);
    /* exempt for its first 5 minutes: P waits until 300 */
    run(&x, PREEMPT "PreemptExemptTime=00:05:00\n", NULL, pre_jobs, 2, false);
    assert_int_equal(start_of(&x, 1), 300);
    assert_int_equal(x.r.jobs[0].lost_gpu_s, 4 * 300);
    done(&x);
    /* CANCEL: the victim ends PREEMPTED */
    run(&x,
        BASE "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\n"
             "PartitionName=prod Nodes=n1 MaxTime=INFINITE Priority=100\n"
             "PartitionName=dev Nodes=n1 Default=YES MaxTime=INFINITE "
             "Priority=10\n",
        NULL, pre_jobs, 2, false);
    assert_int_equal(x.r.jobs[0].end, SIM_END_PREEMPTED);
    assert_int_equal(x.r.jobs[0].runs, 1);
    done(&x);
    /* no preemption without PreemptType */
    run(&x,
        BASE "PartitionName=prod Nodes=n1 MaxTime=INFINITE Priority=100\n"
             "PartitionName=dev Nodes=n1 Default=YES MaxTime=INFINITE "
             "Priority=10\n",
        NULL, pre_jobs, 2, false);
    assert_int_equal(start_of(&x, 1), 1000);
    assert_int_equal(x.r.npre, 0);
    done(&x);
}

static void test_never(void **state)
{
    static const struct tj jobs[] = {
        {0, 10, 0, NULL, NULL, NULL, 2, 1, 0},    /* two nodes */
        {0, 10, 0, NULL, NULL, NULL, 1, 1, 8},    /* 8 GPUs */
        {0, 10, 7200, NULL, NULL, NULL, 1, 1, 0}, /* over MaxTime */
        {0, 10, 0, NULL, NULL, "gold", 1, 1, 0},  /* no such QOS */
        {5, 10, 0, NULL, NULL, NULL, 1, 1, 0},    /* fine */
    };
    struct run x;

    (void)state;
    run(&x,
        BASE "EnforcePartLimits=ALL\n"
             "PartitionName=p Nodes=n1 Default=YES MaxTime=1:00:00\n",
        NULL, jobs, 5, false);
    assert_int_equal(x.r.jobs[0].end, SIM_END_NEVER);
    assert_string_equal(x.r.jobs[0].reason, "PartitionNodeLimit");
    assert_int_equal(x.r.jobs[1].end, SIM_END_NEVER);
    assert_non_null(strstr(x.r.jobs[1].reason, "big enough"));
    assert_int_equal(x.r.jobs[2].end, SIM_END_REJECTED);
    assert_string_equal(x.r.jobs[2].reason, "PartitionTimeLimit");
    assert_int_equal(x.r.jobs[3].end, SIM_END_REJECTED);
    assert_string_equal(x.r.jobs[3].reason, "InvalidQOS");
    assert_int_equal(start_of(&x, 4), 5);
    assert_int_equal(x.r.jobs[4].end, SIM_END_DONE);
    done(&x);
    /* without EnforcePartLimits: pending for ever, with the reason */
    run(&x, BASE "PartitionName=p Nodes=n1 Default=YES MaxTime=1:00:00\n", NULL,
        jobs, 3, false);
    assert_int_equal(x.r.jobs[2].end, SIM_END_NEVER);
    assert_string_equal(x.r.jobs[2].reason, "PartitionTimeLimit");
    done(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backfill),
        cmocka_unit_test(test_timeout_and_priority),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_preempt),
        cmocka_unit_test(test_never),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
