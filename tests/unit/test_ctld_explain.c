/*
 * sluice explain's builder (src/ctld/explain.c) on an in-process
 * controller: two GPU nodes with running jobs, a third in another
 * partition.  The nodes are marked registered and connected by hand (no
 * pass runs here, so nothing is launched on them): what each node lacks
 * and until when, the queue, the estimated start, and each suggestion
 * checked against the scheduler by applying it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "ctld/ctld.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/sched/explain.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "GresTypes=gpu\n"
    "EnforcePartLimits=NO\n"
    "SchedulerType=sched/backfill\n"
    "PriorityType=priority/basic\n"
    "NodeName=node[01-03] CPUs=8 RealMemory=16000 Gres=gpu:2\n"
    "PartitionName=gpu Nodes=node[01-02] Default=YES MaxTime=04:00:00\n"
    "PartitionName=dev Nodes=node03 MaxTime=01:00:00\n";

struct fx {
    char dir[64];
    struct conf *conf;
    struct event_base *base;
    struct ctld *c;
    time_t now;
    uint64_t a, b; /* running: node01 both GPUs 2 h, node02 one GPU 1 h */
};

static const struct auth_id alice = {1001, 1001};
/* Stands for a node daemon's connection; never used (no pass runs). */
static char fake_conn;

static uint64_t submit(struct fx *f, const char *part, const char *gres,
                       int time_s, const char *exclude)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "script", "#!/bin/sh\n",
                          "partition", part, "time_limit_s", time_s),
           *reply = NULL;
    struct err e;
    uint64_t id;

    if (gres)
        json_object_set_new(o, "gres", json_string(gres));
    if (exclude)
        json_object_set_new(o, "exclude", json_string(exclude));
    if (jobs_submit(f->c->jobs, o, &alice, &reply, &e) < 0)
        fail_msg("submit: %s", e.text);
    id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
    json_decref(reply);
    json_decref(o);
    return id;
}

static void run_on(struct fx *f, uint64_t id, size_t node, const uint32_t *gpus)
{
    struct err e;

    if (jobs_start_gpus(f->c->jobs, jobs_find(f->c->jobs, id), &node, 1, gpus,
                        f->now, &e) < 0)
        fail_msg("start: %s", e.text);
}

static int setup(void **state)
{
    static const uint32_t both[] = {0, 1}, one[] = {0};
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];
    struct err e;

    strcpy(f->dir, "/tmp/sluice-test-explain.XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir);
    f->conf = conf_parse_string(text, "test.conf", NULL, &e);
    if (f->conf == NULL)
        return -1;
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    f->c = ctld_create(f->conf, NULL, f->base, &e);
    if (f->c == NULL)
        return -1;
    sched_drv_unpaced(f->c->sched); /* outcomes independent of speed */
    for (size_t i = 0; i < nodes_count(f->c->nodes); i++) {
        struct node *n = nodes_get(f->c->nodes, i);
        n->registered = true;
        n->conn = (struct conn *)&fake_conn;
    }
    f->now = time(NULL);
    f->a = submit(f, "gpu", "gpu:2", 7200, NULL);
    f->b = submit(f, "gpu", "gpu:1", 3600, NULL);
    run_on(f, f->a, 0, both);
    run_on(f, f->b, 1, one);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    for (size_t i = 0; i < nodes_count(f->c->nodes); i++)
        nodes_get(f->c->nodes, i)->conn = NULL;
    ctld_destroy(f->c);
    conf_destroy(f->conf);
    event_base_free(f->base);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    free(f);
    return system(cmd) == 0 ? 0 : -1;
}

static json_t *explain(struct fx *f, uint64_t id)
{
    return explain_job(f->c->explain, jobs_find(f->c->jobs, id), f->now);
}

static json_int_t num(json_t *o, const char *path)
{
    char buf[128], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && o;
         k = strtok_r(NULL, ".", &save))
        o = json_is_array(o) ? json_array_get(o, (size_t)atoi(k))
                             : json_object_get(o, k);
    if (!json_is_integer(o))
        fail_msg("%s: not an integer", path);
    return json_integer_value(o);
}

static const char *str(json_t *o, size_t node, const char *key)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(o, "nodes"), node), key));
}

/* The suggestion of kind k, or NULL. */
static json_t *suggestion(json_t *o, const char *k)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(o, "suggestions"), i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "kind")), k) == 0)
            return v;
    }
    return NULL;
}

static void test_busy_gpus(void **state)
{
    struct fx *f = *state;
    uint64_t c = submit(f, "gpu", "gpu:2", 7200, NULL);
    json_t *o = explain(f, c);
    json_int_t est = num(o, "estimated_start");

    assert_string_equal(str(o, 0, "status"), "busy");
    assert_int_equal(num(o, "nodes.0.lacks.gpus"), 2);
    assert_int_equal(num(o, "nodes.0.free.gpus"), 0);
    assert_int_equal(num(o, "nodes.0.until"), f->now + 7200);
    assert_int_equal(num(o, "nodes.0.until_job"), f->a);
    assert_string_equal(str(o, 1, "status"), "busy");
    assert_int_equal(num(o, "nodes.1.lacks.gpus"), 1);
    assert_int_equal(num(o, "nodes.1.free.gpus"), 1);
    assert_int_equal(num(o, "nodes.1.until"), f->now + 3600);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(o, "next_pass"), "reason")),
                        "Resources");
    /* backfill's reservation: when job b ends, at bf_resolution (60 s) */
    assert_true(est >= f->now + 3600 && est <= f->now + 3660);
    assert_int_equal(num(o, "queue.rank"), 1);
    json_decref(o);
}

static void test_queue_and_shorter_time(void **state)
{
    struct fx *f = *state;
    uint64_t c = submit(f, "gpu", "gpu:2", 7200, NULL);
    uint64_t d = submit(f, "gpu", "gpu:1", 10800, NULL);
    struct job *dj = jobs_find(f->c->jobs, d);
    json_t *o = explain(f, d), *s, *o2;
    json_int_t lim;

    assert_int_equal(num(o, "queue.rank"), 2);
    assert_int_equal(num(o, "queue.ahead.0.job_id"), c);
    assert_string_equal(str(o, 1, "status"), "fits");
    s = suggestion(o, "time_limit");
    assert_non_null(s);
    lim = num(s, "time_limit_s");
    /* before job c's reservation on node02, an hour away */
    assert_true(lim >= 3000 && lim <= 3600 && lim % 60 == 0);
    /* the scheduler agrees: with it, the next pass starts d; a minute
     * more and it does not */
    dj->time_limit_s = lim;
    o2 = explain(f, d);
    assert_true(json_is_true(
        json_object_get(json_object_get(o2, "next_pass"), "would_start")));
    json_decref(o2);
    dj->time_limit_s = lim + 60;
    o2 = explain(f, d);
    assert_false(json_is_true(
        json_object_get(json_object_get(o2, "next_pass"), "would_start")));
    json_decref(o2);
    /* and dev has a free node with GPUs the user may use */
    s = suggestion(o, "partition");
    assert_null(s); /* three hours are over dev's MaxTime */
    json_decref(o);
    dj->time_limit_s = 1800;
    o = explain(f, d);
    assert_true(json_is_true(
        json_object_get(json_object_get(o, "next_pass"), "would_start")));
    json_decref(o);
}

static void test_other_partition(void **state)
{
    struct fx *f = *state;
    uint64_t c = submit(f, "gpu", "gpu:2", 3000, NULL);
    json_t *o = explain(f, c), *s = suggestion(o, "partition");

    assert_non_null(s);
    assert_string_equal(json_string_value(json_object_get(s, "partition")),
                        "dev");
    assert_string_equal(json_string_value(json_object_get(s, "node_list")),
                        "node03");
    json_decref(o);
}

static void test_drained_node(void **state)
{
    struct fx *f = *state;
    struct node *n3 = nodes_get(f->c->nodes, 2);
    struct err e;
    uint64_t j;
    json_t *o, *s;

    assert_int_equal(
        nodes_set_admin(f->c->nodes, n3, NODE_ADMIN_DRAIN, "maint", f->now, &e),
        0);
    j = submit(f, "dev", NULL, 600, NULL);
    o = explain(f, j);
    assert_string_equal(str(o, 0, "status"), "drained");
    assert_string_equal(str(o, 0, "reason"), "maint");
    s = suggestion(o, "resume_node");
    assert_non_null(s);
    assert_string_equal(json_string_value(json_object_get(s, "node")),
                        "node03");
    json_decref(o);
}

static void test_over_max_time_and_exclude(void **state)
{
    struct fx *f = *state;
    uint64_t j = submit(f, "dev", NULL, 7200, NULL);
    uint64_t x = submit(f, "gpu", NULL, 600, "node01");
    json_t *o = explain(f, j), *s;

    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(o, "partition_limit"), "reason")),
                        "PartitionTimeLimit");
    assert_int_equal(num(o, "partition_limit.max_time_s"), 3600);
    s = suggestion(o, "time_limit");
    assert_non_null(s);
    assert_int_equal(num(s, "time_limit_s"), 3600);
    assert_true(json_is_true(json_object_get(s, "would_start")));
    json_decref(o);
    o = explain(f, x);
    assert_string_equal(str(o, 0, "status"), "excluded");
    assert_string_equal(str(o, 1, "status"), "fits");
    json_decref(o);
}

static uint64_t submit_spec(struct fx *f, json_t *o)
{
    json_t *reply = NULL;
    struct err e;
    uint64_t id;

    if (jobs_submit(f->c->jobs, o, &alice, &reply, &e) < 0)
        fail_msg("submit: %s", e.text);
    id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
    json_decref(reply);
    json_decref(o);
    return id;
}

static void test_dependency(void **state)
{
    struct fx *f = *state;
    char dep[64];
    uint64_t j;
    json_t *o, *d;

    snprintf(dep, sizeof(dep), "afterok:%llu", (unsigned long long)f->a);
    j = submit_spec(f, json_pack("{s:s, s:s, s:i, s:s}", "script",
                                 "#!/bin/sh\n", "partition", "dev",
                                 "time_limit_s", 600, "dependency", dep));
    o = explain(f, j);
    d = json_object_get(o, "dependency");
    assert_string_equal(json_string_value(json_object_get(d, "state")),
                        "waiting");
    assert_string_equal(json_string_value(json_object_get(d, "expression")),
                        dep);
    assert_int_equal(num(d, "on.0.job_id"), f->a);
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(d, "on"), 0), "job_state")),
        "RUNNING");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(o, "next_pass"), "reason")),
                        "Dependency");
    assert_int_equal(json_array_size(json_object_get(o, "suggestions")), 0);
    json_decref(o);
}

/* A pending array is explained by its first task; it stands once in the
 * queue of the jobs behind it. */
static void test_array(void **state)
{
    struct fx *f = *state;
    uint64_t arr = submit_spec(
        f, json_pack("{s:s, s:s, s:i, s:s, s:s}", "script", "#!/bin/sh\n",
                     "partition", "gpu", "time_limit_s", 7200, "gres", "gpu:2",
                     "array", "0-9"));
    uint64_t d = submit(f, "gpu", "gpu:1", 10800, NULL);
    json_t *o = explain(f, arr);

    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(o, "next_pass"), "reason")),
                        "Resources");
    assert_int_equal(num(o, "queue.rank"), 1);
    json_decref(o);
    o = explain(f, d);
    assert_int_equal(num(o, "queue.rank"), 2);
    assert_int_equal(num(o, "queue.ahead.0.job_id"), arr);
    json_decref(o);
}

static void test_running(void **state)
{
    struct fx *f = *state;
    json_t *o = explain(f, f->a);

    assert_string_equal(json_string_value(json_object_get(o, "job_state")),
                        "RUNNING");
    assert_string_equal(json_string_value(json_object_get(o, "node_list")),
                        "node01");
    assert_int_equal(num(o, "end_time_est"), f->now + 7200);
    assert_null(json_object_get(o, "suggestions"));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_busy_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_and_shorter_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_other_partition, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drained_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_over_max_time_and_exclude, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dependency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_array, setup, teardown),
        cmocka_unit_test_setup_teardown(test_running, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
