/*
 * Dependencies and arrays in the scheduler core: the --dependency parser
 * and its canonical text, each dependency type judged from facts, ','
 * and '?', aftercorr, and passes where an array throttled %2 starts
 * exactly 2 tasks and a singleton waits for its namesake.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/depend.h"
#include "sched/sched.h"

static const struct {
    const char *in, *canon;
    size_t n;
    bool any;
} good[] = {
    {"afterok:12", "afterok:12", 1, false},
    {"afterok:1:2", "afterok:1:2", 2, false},
    {"after:5+10,afterany:6_3", "after:5+10,afterany:6_3", 2, false},
    {"afterok:1?afternotok:2", "afterok:1?afternotok:2", 2, true},
    {"afterok:1:2?singleton", "afterok:1?afterok:2?singleton", 3, true},
    {"singleton", "singleton", 1, false},
    {"aftercorr:7", "aftercorr:7", 1, false},
    {"afterok:1,afterok:2", "afterok:1:2", 2, false},
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct depend d, again;
        struct err e;
        char *s;

        if (depend_parse(good[i].in, &d, &e) < 0)
            fail_msg("%s: %s", good[i].in, e.text);
        assert_int_equal(d.n, good[i].n);
        assert_int_equal(d.any, good[i].any);
        s = depend_format(&d);
        assert_string_equal(s, good[i].canon);
        /* the canonical text means the same */
        assert_int_equal(depend_parse(s, &again, &e), 0);
        assert_int_equal(again.n, d.n);
        assert_int_equal(again.any, d.any);
        for (size_t k = 0; k < d.n; k++) {
            assert_int_equal(again.v[k].type, d.v[k].type);
            assert_int_equal(again.v[k].job_id, d.v[k].job_id);
            assert_int_equal(again.v[k].task, d.v[k].task);
            assert_int_equal(again.v[k].minutes, d.v[k].minutes);
        }
        free(s);
        depend_clear(&d);
        depend_clear(&again);
    }
}

static void test_parse_fields(void **state)
{
    struct depend d;
    struct err e;

    (void)state;
    assert_int_equal(depend_parse("after:5+10:6_3", &d, &e), 0);
    assert_int_equal(d.v[0].type, DEP_AFTER);
    assert_int_equal(d.v[0].job_id, 5);
    assert_int_equal(d.v[0].task, DEP_ALL_TASKS);
    assert_int_equal(d.v[0].minutes, 10);
    assert_int_equal(d.v[1].job_id, 6);
    assert_int_equal(d.v[1].task, 3);
    assert_int_equal(d.v[1].minutes, 0);
    depend_clear(&d);
}

static const struct {
    const char *in, *error;
} bad[] = {
    {"", "empty"},
    {"afterfoo:1", "unknown dependency type \"afterfoo\""},
    {"afterok", "no job id"},
    {"afterok:", "no job id"},
    {"afterok:x", "expected a job id"},
    {"afterok:0", "expected a job id"},
    {"afterok:1,afterany:2?afterok:3", "cannot be mixed"},
    {"afterok:1+5", "+minutes is only for after:"},
    {"after:1+x", "expected minutes"},
    {"afterok:1_x", "expected an array task id"},
    {"singleton:3", "singleton takes no job ids"},
    {"afterok:1,", "nothing after the last separator"},
    {"afterok:1,,afterok:2", "empty part"},
};

static void test_parse_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct depend d;
        struct err e;

        assert_int_equal(depend_parse(bad[i].in, &d, &e), -1);
        if (strstr(e.text, bad[i].error) == NULL ||
            strstr(e.text, "Job dependency problem") == NULL)
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].in, e.text,
                     bad[i].error);
    }
}

/* total, begun, ended, ok, last_begin */
#define F(t, b, en, o, lb) ((struct dep_facts){true, t, b, en, o, lb})

static const struct {
    enum dep_type type;
    uint32_t minutes;
    struct dep_facts f;
    enum dep_result want;
} evals[] = {
    /* after: begun (started or cancelled) */
    {DEP_AFTER, 0, F(1, 0, 0, 0, 0), DEP_WAIT},
    {DEP_AFTER, 0, F(1, 1, 0, 0, 90), DEP_MET},
    {DEP_AFTER, 0, F(3, 2, 1, 1, 90), DEP_WAIT}, /* array: all must begin */
    {DEP_AFTER, 1, F(1, 1, 0, 0, 90), DEP_WAIT}, /* +1 min from 90: 150 */
    {DEP_AFTER, 1, F(1, 1, 0, 0, 40), DEP_MET},
    /* afterany: ended in any state */
    {DEP_AFTERANY, 0, F(1, 1, 0, 0, 90), DEP_WAIT},
    {DEP_AFTERANY, 0, F(1, 1, 1, 0, 90), DEP_MET},
    {DEP_AFTERANY, 0, F(4, 4, 3, 3, 90), DEP_WAIT},
    /* afterok: all ended OK; one failure: never */
    {DEP_AFTEROK, 0, F(1, 1, 0, 0, 90), DEP_WAIT},
    {DEP_AFTEROK, 0, F(1, 1, 1, 1, 90), DEP_MET},
    {DEP_AFTEROK, 0, F(1, 1, 1, 0, 90), DEP_NEVER},
    {DEP_AFTEROK, 0, F(10, 5, 2, 1, 90), DEP_NEVER},
    {DEP_AFTEROK, 0, F(10, 10, 10, 10, 90), DEP_MET},
    /* afternotok: all ended, not all OK */
    {DEP_AFTERNOTOK, 0, F(1, 1, 0, 0, 90), DEP_WAIT},
    {DEP_AFTERNOTOK, 0, F(1, 1, 1, 0, 90), DEP_MET},
    {DEP_AFTERNOTOK, 0, F(1, 1, 1, 1, 90), DEP_NEVER},
    {DEP_AFTERNOTOK, 0, F(3, 3, 2, 1, 90), DEP_WAIT},
    {DEP_AFTERNOTOK, 0, F(3, 3, 3, 2, 90), DEP_MET},
    /* aftercorr: the facts of the corresponding task */
    {DEP_AFTERCORR, 0, F(1, 1, 1, 1, 90), DEP_MET},
    {DEP_AFTERCORR, 0, F(1, 1, 1, 0, 90), DEP_NEVER},
    {DEP_AFTERCORR, 0, F(1, 0, 0, 0, 0), DEP_WAIT},
    /* singleton is the counter's business */
    {DEP_SINGLETON, 0, F(0, 0, 0, 0, 0), DEP_MET},
};

static void test_eval(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(evals) / sizeof(evals[0]); i++) {
        struct dep_clause c = {evals[i].type, 9, DEP_ALL_TASKS,
                               evals[i].minutes};
        time_t recheck = 0;
        enum dep_result r = depend_clause_eval(&c, &evals[i].f, 100, &recheck);
        if (r != evals[i].want)
            fail_msg("case %zu (%s): got %d, want %d", i,
                     depend_type_name(c.type), r, evals[i].want);
    }
}

static void test_eval_recheck_and_gone(void **state)
{
    struct dep_clause c = {DEP_AFTER, 9, DEP_ALL_TASKS, 2};
    struct dep_facts f = F(1, 1, 0, 0, 90), gone = {0};
    time_t recheck = 0;

    (void)state;
    assert_int_equal(depend_clause_eval(&c, &f, 100, &recheck), DEP_WAIT);
    assert_int_equal(recheck, 210);
    assert_int_equal(depend_clause_eval(&c, &f, 210, NULL), DEP_MET);
    /* a job no longer known (purged) counts as met, as in Slurm */
    c.type = DEP_AFTEROK;
    assert_int_equal(depend_clause_eval(&c, &gone, 100, NULL), DEP_MET);
}

static void test_combine(void **state)
{
    struct dep_clause v[3] = {{0}};
    struct depend all = {v, 3, false}, any = {v, 3, true};
    const enum dep_result mwn[] = {DEP_MET, DEP_WAIT, DEP_NEVER};
    const enum dep_result mmm[] = {DEP_MET, DEP_MET, DEP_MET};
    const enum dep_result mmw[] = {DEP_MET, DEP_MET, DEP_WAIT};
    const enum dep_result nnn[] = {DEP_NEVER, DEP_NEVER, DEP_NEVER};
    const enum dep_result nwn[] = {DEP_NEVER, DEP_WAIT, DEP_NEVER};

    (void)state;
    assert_int_equal(depend_combine(&all, mwn), DEP_NEVER);
    assert_int_equal(depend_combine(&all, mmm), DEP_MET);
    assert_int_equal(depend_combine(&all, mmw), DEP_WAIT);
    assert_int_equal(depend_combine(&any, mwn), DEP_MET);
    assert_int_equal(depend_combine(&any, nnn), DEP_NEVER);
    assert_int_equal(depend_combine(&any, nwn), DEP_WAIT);
}

/* ---- passes ------------------------------------------------------------ */

static struct sched_node nodes[1];
static const size_t all_nodes[] = {0};
static const struct sched_part parts[] = {{"p", true, false, all_nodes, 1}};

static struct sched_job task(uint64_t id, uint32_t prio,
                             const struct sched_charge *ch, size_t nch)
{
    return (struct sched_job){.id = id,
                              .part = 0,
                              .nodes = 1,
                              .cpus_per_node = 1,
                              .priority = prio,
                              .submit_time = 10,
                              .charges = ch,
                              .ncharges = nch};
}

/* Five tasks of one array (one record, offered once per task) throttled
 * %2 with nothing running: exactly two start; a plain job behind them in
 * the partition still starts. */
static void test_throttle_pass(void **state)
{
    struct sched_counter cn[] = {{2, 0, "JobArrayTaskLimit"}};
    const struct sched_charge ch[] = {{0, 1}};
    struct sched_job jobs[6];
    struct sched_cluster c;
    struct sched_result r;
    size_t limited = 0;

    (void)state;
    nodes[0] = (struct sched_node){
        .name = "n1", .cpus = 16, .mem_mib = 1000, .up = true};
    for (int i = 0; i < 5; i++)
        jobs[i] = task(1, 10, ch, 1);
    jobs[5] = task(2, 1, NULL, 0);
    c = (struct sched_cluster){.nodes = nodes,
                               .nnodes = 1,
                               .parts = parts,
                               .nparts = 1,
                               .jobs = jobs,
                               .njobs = 6,
                               .counters = cn,
                               .ncounters = 1};
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 3);
    assert_int_equal(cn[0].used, 2);
    for (size_t i = 0; i < r.n; i++) {
        const struct sched_decision *d = &r.decisions[i];
        if (d->job == 5)
            assert_int_equal(d->nnodes, 1);
        if (d->reason == SCHED_REASON_LIMIT) {
            assert_string_equal(d->limit, "JobArrayTaskLimit");
            limited++;
        }
    }
    assert_int_equal(limited, 3);
    assert_int_equal(nodes[0].cpus_alloc, 3);
    sched_result_clear(&r);

    /* a later pass with the two running: none of the array starts */
    cn[0].used = 2;
    nodes[0].cpus_alloc = 2;
    c.njobs = 3;
    assert_int_equal(sched_pass(&c, 101, &r), 0);
    assert_int_equal(r.started, 0);
    sched_result_clear(&r);
}

/* singleton: a counter of capacity 1 per name and user; with its
 * namesake running a job waits with reason Dependency, and of two
 * pending namesakes only one starts. */
static void test_singleton_pass(void **state)
{
    struct sched_counter cn[] = {{1, 1, "Dependency"}, {1, 0, "Dependency"}};
    const struct sched_charge busy[] = {{0, 1}}, free_[] = {{1, 1}};
    struct sched_job jobs[] = {task(1, 1, busy, 1), task(2, 1, free_, 1),
                               task(3, 1, free_, 1)};
    struct sched_cluster c = {.nodes = nodes,
                              .nnodes = 1,
                              .parts = parts,
                              .nparts = 1,
                              .jobs = jobs,
                              .njobs = 3,
                              .counters = cn,
                              .ncounters = 2};
    struct sched_result r;

    (void)state;
    nodes[0] = (struct sched_node){
        .name = "n1", .cpus = 16, .mem_mib = 1000, .up = true};
    assert_int_equal(sched_pass(&c, 100, &r), 0);
    assert_int_equal(r.started, 1);
    for (size_t i = 0; i < r.n; i++) {
        const struct sched_decision *d = &r.decisions[i];
        if (d->job == 0 || d->job == 2) {
            assert_int_equal(d->reason, SCHED_REASON_LIMIT);
            assert_string_equal(d->limit, "Dependency");
        } else {
            assert_int_equal(d->nnodes, 1);
        }
    }
    sched_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_fields),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_eval_recheck_and_gone),
        cmocka_unit_test(test_combine),
        cmocka_unit_test(test_throttle_pass),
        cmocka_unit_test(test_singleton_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
