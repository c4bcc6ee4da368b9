/*
 * The reservation table (ctld/cluster/resv.c) on a temporary database:
 * what a create checks (times, nodes, users, overlaps, busy nodes), the
 * generated names, who may use one, the scheduler's node rule
 * (resvs_job_mask) as a table, the end of a reservation and of a DAILY
 * one, and the table as a restart finds it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>

#include "common/conf.h"
#include "ctld/cluster/resv.h"
#include "ctld/core/loop.h"
#include "ctld/core/persist.h"
#include "sched/backfill.h"
#include "sched/sched.h"

static char dir[] = "/tmp/sluice-test-resv.XXXXXX";

static const char *conf_text =
    "ClusterName=t\nSlurmctldHost=h\n"
    "NodeName=node[01-04] CPUs=8 RealMemory=1000\n"
    "PartitionName=all Nodes=node[01-04] Default=YES\n"
    "PartitionName=two Nodes=node[03-04]\n";

#define NOW 1000000

struct fx {
    struct event_base *base;
    struct persist *persist;
    struct loop *loop;
    struct conf *conf;
    struct resvs *rs;
    bool busy[4]; /* nodes with a job running past any start */
};

static void flush(void *arg, bool pass)
{
    struct fx *f = arg;
    struct err e;

    (void)pass;
    if (persist_commit(f->persist, &e) < 0)
        fail_msg("persist_commit: %s", e.text);
}

static bool busy_fn(void *arg, size_t node, time_t at, const char *resv)
{
    struct fx *f = arg;

    (void)at;
    (void)resv;
    return f->busy[node];
}

static void open_table(struct fx *f)
{
    struct err e;

    f->persist = persist_open(dir, &e);
    if (f->persist == NULL)
        fail_msg("persist_open: %s", e.text);
    f->loop = loop_create(f->base, f->persist, NULL, flush, f);
    f->rs = resvs_create(f->conf, f->persist, f->loop, &e);
    if (f->rs == NULL)
        fail_msg("resvs_create: %s", e.text);
}

static void close_table(struct fx *f)
{
    struct err e;

    if (persist_in_txn(f->persist))
        persist_commit(f->persist, &e);
    resvs_destroy(f->rs);
    loop_destroy(f->loop);
    persist_close(f->persist);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;

    strcpy(dir, "/tmp/sluice-test-resv.XXXXXX");
    if (f == NULL || mkdtemp(dir) == NULL)
        return -1;
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    f->conf = conf_parse_string(conf_text, "test.conf", NULL, &e);
    if (f->conf == NULL)
        fail_msg("conf: %s", e.text);
    open_table(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    char cmd[256];

    close_table(f);
    conf_destroy(f->conf);
    event_base_free(f->base);
    free(f);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* add: resvs_add of the JSON text; the error text into e. */
static int add(struct fx *f, const char *text, const char **name, struct err *e)
{
    json_t *spec = json_loads(text, 0, NULL);
    struct resv_busy b = {busy_fn, f};
    int rc;

    assert_non_null(spec);
    rc = resvs_add(f->rs, spec, &b, NOW, name, e);
    json_decref(spec);
    return rc;
}

static void test_create_checks(void **state)
{
    static const struct {
        const char *spec, *err;
    } bad[] = {
        {"{\"nodes\": \"node01\", \"duration_s\": 60}",
         "Either Users or Accounts must be given"},
        {"{\"nodes\": \"node01\", \"users\": \"a\"}",
         "EndTime or Duration must be given"},
        {"{\"nodes\": \"node09\", \"users\": \"a\", \"duration_s\": 60}",
         "Nodes: node node09 is not configured"},
        {"{\"users\": \"a\", \"duration_s\": 60}",
         "Nodes, NodeCnt or PartitionName must be given"},
        {"{\"nodes\": \"node01\", \"users\": \"a,-b\", \"duration_s\": 60}",
         "cannot be mixed"},
        {"{\"nodes\": \"node01\", \"users\": \"a\", \"duration_s\": 60, "
         "\"flags\": \"MAINT,FLEX\"}",
         "Flags: FLEX is not supported here"},
        {"{\"nodes\": \"node01\", \"users\": \"a\", \"start_time\": 1000100, "
         "\"end_time\": 1000050}",
         "EndTime is not after StartTime"},
        {"{\"node_count\": 5, \"users\": \"a\", \"duration_s\": 60}",
         "NodeCnt: expected 1 to 4 nodes"},
    };
    struct fx *f = *state;
    struct err e;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.text[0] = '\0';
        assert_int_equal(add(f, bad[i].spec, NULL, &e), -1);
        if (strstr(e.text, bad[i].err) == NULL)
            fail_msg("%s: got \"%s\", wanted \"%s\"", bad[i].spec, e.text,
                     bad[i].err);
    }
    assert_int_equal(resvs_count(f->rs), 0);
}

static void test_overlap_busy_names(void **state)
{
    struct fx *f = *state;
    const char *name;
    struct err e;

    assert_int_equal(add(f,
                         "{\"name\": \"m\", \"nodes\": \"node01\", \"users\": "
                         "\"root\", \"start_time\": 1000010, \"duration_s\": "
                         "600, \"flags\": \"maint\"}",
                         &name, &e),
                     0);
    assert_string_equal(name, "m");
    /* the same name again, the same node at an overlapping time */
    assert_int_equal(add(f,
                         "{\"name\": \"m\", \"nodes\": \"node02\", \"users\": "
                         "\"a\", \"duration_s\": 60}",
                         NULL, &e),
                     -1);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(add(f,
                         "{\"nodes\": \"node[01-02]\", \"users\": \"a\", "
                         "\"start_time\": 1000500, \"duration_s\": 600}",
                         NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "overlaps with another reservation (m)"));
    /* after it: fine; OVERLAP: fine */
    assert_int_equal(add(f,
                         "{\"nodes\": \"node01\", \"users\": \"alice,bob\", "
                         "\"start_time\": 1000610, \"duration_s\": 60}",
                         &name, &e),
                     0);
    assert_string_equal(name, "alice_1");
    assert_int_equal(add(f,
                         "{\"nodes\": \"node01\", \"accounts\": \"-prod\", "
                         "\"duration_s\": 60, \"flags\": \"OVERLAP\"}",
                         &name, &e),
                     0);
    assert_string_equal(name, "prod_2");
    /* busy node02: refused, unless IGNORE_JOBS; NodeCnt skips it */
    f->busy[1] = true;
    assert_int_equal(add(f,
                         "{\"nodes\": \"node02\", \"users\": \"a\", "
                         "\"duration_s\": 60}",
                         NULL, &e),
                     -1);
    assert_int_equal(errno, EBUSY);
    assert_non_null(strstr(e.text, "Requested nodes are busy"));
    assert_int_equal(add(f,
                         "{\"name\": \"n2\", \"node_count\": 2, \"users\": "
                         "\"a\", \"duration_s\": 60}",
                         NULL, &e),
                     0);
    {
        json_t *o = resvs_to_json(f->rs, resvs_find(f->rs, "n2"), NOW);
        assert_string_equal(json_string_value(json_object_get(o, "nodes")),
                            "node[03-04]");
        json_decref(o);
    }
    assert_int_equal(add(f,
                         "{\"nodes\": \"node02\", \"users\": \"a\", "
                         "\"duration_s\": 60, \"flags\": \"IGNORE_JOBS\"}",
                         NULL, &e),
                     0);
    assert_int_equal(resvs_count(f->rs), 5);
}

static void test_access(void **state)
{
    struct fx *f = *state;
    struct err e;

    assert_int_equal(add(f,
                         "{\"name\": \"u\", \"nodes\": \"node01\", \"users\": "
                         "\"alice\", \"accounts\": \"prod\", \"duration_s\": "
                         "60}",
                         NULL, &e),
                     0);
    assert_int_equal(add(f,
                         "{\"name\": \"x\", \"nodes\": \"node02\", \"users\": "
                         "\"-bob\", \"duration_s\": 60}",
                         NULL, &e),
                     0);
    assert_int_equal(resvs_job_access(f->rs, "u", "alice", "prod", &e), 0);
    assert_int_equal(resvs_job_access(f->rs, "u", "alice", "dev", &e), -1);
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(e.text, "Access denied to requested reservation"));
    assert_int_equal(resvs_job_access(f->rs, "u", "bob", "prod", &e), -1);
    assert_int_equal(resvs_job_access(f->rs, "x", "alice", NULL, &e), 0);
    assert_int_equal(resvs_job_access(f->rs, "x", "bob", NULL, &e), -1);
    assert_int_equal(resvs_job_access(f->rs, "nope", "bob", NULL, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "Requested reservation is invalid"));
}

/* The scheduler's rule: node01 reserved (MAINT) from NOW+2 for 600 s. */
static void test_job_mask(void **state)
{
    static const struct {
        const char *resv;
        int64_t limit_s;
        time_t at;
        enum resv_verdict v;
        const char *mask; /* '1': may use, per node; NULL: untouched */
        bool maint;
    } rows[] = {
        /* a 10-minute job now meets the window: kept off node01 */
        {NULL, 600, NOW, RESV_MASKED, "0111", true},
        /* a 1-second job ends before it begins: anywhere */
        {NULL, 1, NOW, RESV_FREE, NULL, false},
        {NULL, 2, NOW, RESV_FREE, NULL, false},
        {NULL, 3, NOW, RESV_MASKED, "0111", true},
        /* no time limit: it never ends, so it meets every window */
        {NULL, 0, NOW, RESV_MASKED, "0111", true},
        /* during and after the window */
        {NULL, 60, NOW + 100, RESV_MASKED, "0111", true},
        {NULL, 60, NOW + 602, RESV_FREE, NULL, false},
        /* a job of the reservation: waits, then only its nodes */
        {"m", 60, NOW, RESV_WAIT, NULL, false},
        {"m", 6000, NOW + 2, RESV_MASKED, "1000", false},
        {"gone", 60, NOW, RESV_DELETED, NULL, false},
    };
    struct fx *f = *state;
    struct err e;

    assert_int_equal(add(f,
                         "{\"name\": \"m\", \"nodes\": \"node01\", \"users\": "
                         "\"root\", \"start_time\": 1000002, \"duration_s\": "
                         "600, \"flags\": \"MAINT\"}",
                         NULL, &e),
                     0);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        bool mask[4] = {true, true, true, true}, maint = true;
        enum resv_verdict v = resvs_job_mask(
            f->rs, rows[i].resv, rows[i].limit_s, rows[i].at, mask, 4, &maint);
        char got[5];
        for (size_t k = 0; k < 4; k++)
            got[k] = mask[k] ? '1' : '0';
        got[4] = '\0';
        if (v != rows[i].v || maint != rows[i].maint ||
            strcmp(got, rows[i].mask ? rows[i].mask : "1111") != 0)
            fail_msg("row %zu: verdict %d mask %s maint %d", i, v, got, maint);
    }
    assert_string_equal(resvs_blocker(f->rs, NULL, 600, NOW, 0), "m");
    assert_null(resvs_blocker(f->rs, NULL, 1, NOW, 0));
    assert_null(resvs_blocker(f->rs, NULL, 600, NOW, 1));
    assert_string_equal(resvs_blocker(f->rs, "m", 60, NOW, 1), "m");
    assert_null(resvs_blocker(f->rs, "m", 60, NOW, 0));
    assert_string_equal(resvs_maint_node(f->rs, 0, NOW + 5), "m");
    assert_null(resvs_maint_node(f->rs, 0, NOW));
    assert_null(resvs_maint_node(f->rs, 1, NOW + 5));
}

/* The rule as the pure core applies it: a 10-minute job kept off node01
 * (MAINT from NOW+2) starts on node02; one that must have node01 waits
 * (Resources); a job of the reservation waits (Reservation) before it
 * begins and then starts on node01 alone; with backfill as well. */
static void test_sched_rule(void **state)
{
    struct fx *f = *state;
    struct sched_node nodes[4];
    const size_t all[] = {0, 1, 2, 3};
    struct sched_part part = {"all", true, false, all, 4};
    bool m[3][5], only01[4] = {true, false, false, false};
    struct sched_job jobs[3];
    struct sched_result r;
    struct sched_bf bf;
    struct err e;

    assert_int_equal(add(f,
                         "{\"name\": \"m\", \"nodes\": \"node01\", \"users\": "
                         "\"root\", \"start_time\": 1000002, \"duration_s\": "
                         "600, \"flags\": \"MAINT\"}",
                         NULL, &e),
                     0);
    for (int pass = 0; pass < 3; pass++) {
        time_t at = pass < 2 ? NOW : NOW + 2;
        struct sched_cluster c = {.nodes = nodes,
                                  .nnodes = 4,
                                  .parts = &part,
                                  .nparts = 1,
                                  .jobs = jobs,
                                  .njobs = 3};
        for (size_t i = 0; i < 4; i++)
            nodes[i] = (struct sched_node){
                .name = "n", .cpus = 8, .mem_mib = 1000, .up = true};
        for (size_t k = 0; k < 3; k++)
            jobs[k] = (struct sched_job){.id = k + 1,
                                         .nodes = 1,
                                         .cpus_per_node = 8,
                                         .time_limit_s = 600,
                                         .submit_time = NOW};
        /* job 1 -w node01 with the mask, job 2 plain, job 3 in "m" */
        assert_int_equal(resvs_job_mask(f->rs, NULL, 600, at, m[0], 4, NULL),
                         RESV_MASKED);
        for (size_t i = 0; i < 4; i++)
            m[0][i] = m[0][i] && only01[i];
        jobs[0].node_allowed = m[0];
        assert_int_equal(resvs_job_mask(f->rs, NULL, 600, at, m[1], 4, NULL),
                         RESV_MASKED);
        jobs[1].node_allowed = m[1];
        enum resv_verdict v =
            resvs_job_mask(f->rs, "m", 600, at, m[2], 4, NULL);
        if (v == RESV_WAIT)
            jobs[2].resv_gate = SCHED_REASON_RESERVATION;
        else
            jobs[2].node_allowed = m[2];
        if (pass == 1) {
            memset(&bf, 0, sizeof(bf));
            sched_bf_params_parse("", &bf, &e);
            assert_int_equal(sched_backfill_pass(&c, &bf, at, &r, NULL), 0);
        } else {
            assert_int_equal(sched_pass(&c, at, &r), 0);
        }
        for (size_t k = 0; k < r.n; k++) {
            const struct sched_decision *d = &r.decisions[k];
            if (d->job == 0) {
                assert_int_equal(d->nnodes, 0);
                assert_int_equal(d->reason, SCHED_REASON_NEVER_FITS);
            } else if (d->job == 1) {
                assert_int_equal(d->nnodes, 1);
                assert_int_not_equal(d->nodes[0], 0);
            } else if (pass < 2) {
                assert_int_equal(d->nnodes, 0);
                assert_int_equal(d->reason, SCHED_REASON_RESERVATION);
                assert_string_equal(sched_reason_name(d->reason),
                                    "Reservation");
            } else {
                assert_int_equal(d->nnodes, 1);
                assert_int_equal(d->nodes[0], 0);
            }
        }
        sched_result_clear(&r);
    }
}

static void test_end_daily_restart(void **state)
{
    struct fx *f = *state;
    struct err e;
    json_t *set;
    struct resv_busy b = {busy_fn, f};

    assert_int_equal(add(f,
                         "{\"name\": \"once\", \"nodes\": \"node01\", "
                         "\"users\": \"a\", \"duration_s\": 60}",
                         NULL, &e),
                     0);
    assert_int_equal(add(f,
                         "{\"name\": \"day\", \"nodes\": \"node02\", "
                         "\"users\": \"a\", \"duration_s\": 60, \"flags\": "
                         "\"DAILY,MAINT\"}",
                         NULL, &e),
                     0);
    set = json_pack("{s:I}", "duration_s", (json_int_t)120);
    assert_int_equal(resvs_update(f->rs, "day", set, &b, NOW, &e), 0);
    json_decref(set);
    set = json_pack("{s:s}", "nodes", "node01");
    assert_int_equal(resvs_update(f->rs, "day", set, &b, NOW, &e), -1);
    assert_non_null(strstr(e.text, "overlaps"));
    json_decref(set);
    resvs_tick(f->rs, NOW + 61);
    assert_null(resvs_find(f->rs, "once"));
    resvs_tick(f->rs, NOW + 121);
    assert_non_null(resvs_find(f->rs, "day"));
    assert_int_equal(resvs_find(f->rs, "day")->start, NOW + 86400);
    assert_int_equal(resvs_find(f->rs, "day")->end, NOW + 86400 + 120);
    /* what a restart finds */
    close_table(f);
    open_table(f);
    assert_int_equal(resvs_count(f->rs), 1);
    {
        json_t *o = resvs_to_json(f->rs, resvs_get(f->rs, 0), NOW);
        char *s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
        assert_string_equal(
            s, "{\"accounts\":null,\"core_count\":8,\"duration_s\":120,"
               "\"end_time\":1086520,\"flags\":\"MAINT,DAILY,SPEC_NODES\","
               "\"name\":\"day\",\"node_count\":1,\"nodes\":\"node02\","
               "\"partition\":null,\"start_time\":1086400,\"state\":"
               "\"INACTIVE\",\"tres\":\"cpu=8\",\"users\":\"a\"}");
        free(s);
        json_decref(o);
    }
    assert_int_equal(resvs_delete(f->rs, "day", &e), 0);
    assert_int_equal(resvs_delete(f->rs, "day", &e), -1);
    assert_int_equal(errno, ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlap_busy_names, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_access, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sched_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_end_daily_restart, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
