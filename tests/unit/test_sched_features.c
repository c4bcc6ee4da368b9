/*
 * The job options in the scheduler core: the -C feature parser and
 * matcher (a table), node sets with counts and [..] groups, --exclusive
 * taking whole empty nodes, and --time-min letting backfill start a job
 * with a shorter limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched/backfill.h"
#include "sched/features.h"
#include "sched/sched.h"

static void test_parse_table(void **state)
{
    static const struct {
        const char *expr;
        const char *error; /* NULL: parses */
    } cases[] = {
        {"a100", NULL},
        {"a100&ib", NULL},
        {"a100|h100", NULL},
        {"(a100|h100)&ib", NULL},
        {"a100*2&ib", NULL},
        {"[rack1|rack2]", NULL},
        {"[rack1|rack2]&ib", NULL},
        {"[r1*2|r2*4]", NULL},
        {"", "expected a feature name"},
        {"a&", "expected a feature name"},
        {"a|", "expected a feature name"},
        {"(a", "expected ')'"},
        {"[a|b", "expected ']'"},
        {"a)", "unexpected character"},
        {"a*", "expected a count"},
        {"a*0", "count out of range"},
        {"a b", "unexpected character"},
        {"(a*2|b)", "joined to the rest by '&'"},
        {"a*2|b", "joined to the rest by '&'"},
        {"[a&b]", "names joined by '|' only"},
        {"[a]&[b]", "only one [...] group"},
        {"((((((((((((((((((a))))))))))))))))))", "nested too deep"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e;
        struct features_req *r = features_parse(cases[i].expr, &e);
        if (cases[i].error == NULL) {
            if (r == NULL)
                fail_msg("\"%s\" refused: %s", cases[i].expr, e.text);
            features_free(r);
            continue;
        }
        if (r != NULL)
            fail_msg("\"%s\" accepted", cases[i].expr);
        if (strstr(e.text, cases[i].error) == NULL ||
            strstr(e.text, "Invalid feature specification") == NULL)
            fail_msg("\"%s\": got \"%s\", want \"%s\"", cases[i].expr, e.text,
                     cases[i].error);
    }
}

static void test_node_match_table(void **state)
{
    static const struct {
        const char *expr, *feats;
        bool ok;
    } cases[] = {
        {"a100", "a100,ib", true},
        {"a100", "a1000", false},
        {"a100", "", false},
        {"a100&ib", "ib,a100", true},
        {"a100&ib", "a100", false},
        {"a100|h100", "h100", true},
        {"a100|h100&ib", "a100", true}, /* & binds tighter */
        {"(a100|h100)&ib", "a100", false},
        {"(a100|h100)&ib", "h100,ib", true},
        {"[r1|r2]", "r2", true},
        {"[r1|r2]", "r3", false},
        {"[r1|r2]&ib", "r1", false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e;
        struct features_req *r = features_parse(cases[i].expr, &e);
        assert_non_null(r);
        if (features_node_ok(r, cases[i].feats) != cases[i].ok)
            fail_msg("\"%s\" on \"%s\": want %d", cases[i].expr, cases[i].feats,
                     cases[i].ok);
        features_free(r);
    }
}

/* Sets: counts take their nodes first; a group keeps to one choice. */
static void test_pick_sets(void **state)
{
    static const char *const feats[] = {"r1,ib", "r1", "r2,ib", "r2,ib", "r2"};
    struct err e;
    struct features_req *r;
    size_t out[5];

    (void)state;
    r = features_parse("ib*2", &e);
    assert_true(features_pick(r, feats, 5, 3, out));
    assert_int_equal(out[0], 0); /* the two with ib, then any */
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
    assert_false(features_pick(r, feats, 5, 1, out)); /* needs 2 */
    assert_int_equal(features_min_nodes(r), 2);
    features_free(r);

    r = features_parse("[r1|r2]", &e);
    assert_true(features_pick(r, feats, 5, 2, out));
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 1);
    assert_true(features_pick(r, feats, 5, 3, out)); /* only r2 has 3 */
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 4);
    assert_false(features_pick(r, feats, 5, 4, out));
    features_free(r);

    r = features_parse("[r1|r2]&ib", &e);
    assert_true(features_pick(r, feats, 5, 2, out)); /* r2: 2 with ib */
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 3);
    features_free(r);
}

/* Three 8-CPU nodes; n2 has a100. */
static struct sched_node nodes[3];
static const size_t all3[] = {0, 1, 2};
static struct sched_part part3;

static void three_nodes(void)
{
    for (size_t i = 0; i < 3; i++)
        nodes[i] = (struct sched_node){.name = "n",
                                       .cpus = 8,
                                       .mem_mib = 1000,
                                       .up = true,
                                       .features = i == 2 ? "a100,ib" : "ib"};
    part3 = (struct sched_part){
        .name = "all", .start_jobs = true, .nodes = all3, .nnodes = 3};
}

static struct sched_job sjob(uint64_t id, uint32_t nn, uint32_t cpus)
{
    return (struct sched_job){.id = id,
                              .nodes = nn,
                              .cpus_per_node = cpus,
                              .mem_per_node_mib = 100,
                              .priority = (uint32_t)(100 - id),
                              .submit_time = (time_t)id};
}

static const struct sched_decision *of(const struct sched_result *r, size_t job)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->decisions[i].job == job)
            return &r->decisions[i];
    fail_msg("no decision for job %zu", job);
    return NULL;
}

/* --exclusive: the whole of an empty node; nothing joins it, and it
 * does not join a node another job runs on. */
static void test_exclusive_whole_nodes(void **state)
{
    struct sched_job jobs[3] = {sjob(1, 1, 1), sjob(2, 1, 1), sjob(3, 2, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 3,
                              .parts = &part3,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_result r;

    (void)state;
    three_nodes();
    nodes[0].cpus_alloc = 1; /* a job runs on n0 */
    nodes[0].users = 1;
    jobs[0].exclusive_node = true;
    jobs[2].exclusive_node = true;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    /* job 1 takes a whole empty node (best fit: n1), job 2 goes to n0
     * (the tightest that is not whole), job 3 needs two empty nodes */
    assert_int_equal(of(&r, 0)->nnodes, 1);
    assert_int_not_equal(of(&r, 0)->nodes[0], 0);
    assert_true(nodes[of(&r, 0)->nodes[0]].whole);
    assert_int_equal(nodes[of(&r, 0)->nodes[0]].cpus_alloc, 8);
    assert_int_equal(nodes[of(&r, 0)->nodes[0]].mem_alloc_mib, 1000);
    assert_int_equal(of(&r, 1)->nnodes, 1);
    assert_int_equal(of(&r, 1)->nodes[0], 0);
    assert_int_equal(of(&r, 2)->nnodes, 0);
    assert_int_equal(of(&r, 2)->reason, SCHED_REASON_RESOURCES);
    sched_result_clear(&r);
}

/* A constraint with a count: one of the two nodes must have a100. */
static void test_constraint_picks_nodes(void **state)
{
    struct sched_job jobs[1] = {sjob(1, 2, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 3,
                              .parts = &part3,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 1};
    struct sched_result r;
    struct err e;
    struct features_req *fr = features_parse("a100*1&ib", &e);

    (void)state;
    three_nodes();
    jobs[0].constraint = fr;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(of(&r, 0)->nnodes, 2);
    assert_true(of(&r, 0)->nodes[0] == 2 || of(&r, 0)->nodes[1] == 2);
    sched_result_clear(&r);

    /* with n2 busy the count cannot be met: it waits */
    three_nodes();
    nodes[2].cpus_alloc = 8;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(of(&r, 0)->nnodes, 0);
    sched_result_clear(&r);
    features_free(fr);
}

/* Weight: the lower weight first, before best fit. */
static void test_weight_first(void **state)
{
    struct sched_job jobs[1] = {sjob(1, 1, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 3,
                              .parts = &part3,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 1};
    struct sched_result r;

    (void)state;
    three_nodes();
    nodes[0].cpus_alloc = 4; /* the tightest fit, but heavier */
    nodes[0].weight = 10;
    nodes[1].weight = 10;
    nodes[2].weight = 5;
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(of(&r, 0)->nodes[0], 2);
    sched_result_clear(&r);
}

/*
 * --time-min: n0 has 4 CPUs free until 1100, when a big job's
 * reservation starts; a 4-CPU job with a 200 s limit would run into it,
 * but with --time-min=60 backfill starts it now with a 60 s limit.
 */
static void test_time_min_shortens(void **state)
{
    static const size_t n0[] = {0}, n1[] = {1}, both[] = {0, 1};
    struct sched_running running[2] = {
        {.nodes = n0, .nnodes = 1, .cpus_per_node = 4, .end_time = 1100},
        {.nodes = n1, .nnodes = 1, .cpus_per_node = 8, .end_time = 2000}};
    struct sched_node nd[2];
    struct sched_part p = {
        .name = "all", .start_jobs = true, .nodes = both, .nnodes = 2};
    struct sched_job jobs[3] = {sjob(1, 1, 8), sjob(2, 1, 4), sjob(3, 1, 4)};
    struct sched_cluster c = {.nodes = nd,
                              .nnodes = 2,
                              .parts = &p,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3};
    struct sched_bf bf = {.running = running,
                          .nrunning = 2,
                          .window_s = 86400,
                          .resolution_s = 10,
                          .max_job_test = 10};
    struct sched_result r;

    (void)state;
    for (size_t i = 0; i < 2; i++)
        nd[i] = (struct sched_node){
            .name = "n", .cpus = 8, .mem_mib = 1000, .up = true};
    nd[0].cpus_alloc = 4;
    nd[1].cpus_alloc = 8;
    jobs[0].time_limit_s = 500;
    jobs[1].time_limit_s = 200; /* no time-min: waits */
    jobs[2].time_limit_s = 200;
    jobs[2].time_min_s = 60;
    assert_int_equal(sched_backfill_pass(&c, &bf, 1000, &r, NULL), 0);
    assert_int_equal(of(&r, 0)->nnodes, 0);
    assert_int_equal(of(&r, 1)->nnodes, 0);
    assert_int_equal(of(&r, 2)->nnodes, 1);
    assert_true(of(&r, 2)->backfilled);
    assert_int_equal(of(&r, 2)->time_limit_s, 60);
    sched_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_node_match_table),
        cmocka_unit_test(test_pick_sets),
        cmocka_unit_test(test_exclusive_whole_nodes),
        cmocka_unit_test(test_constraint_picks_nodes),
        cmocka_unit_test(test_time_min_shortens),
        cmocka_unit_test(test_weight_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
