/*
 * JOB_UPDATE judged as a submission (security audit finding 2): a pending
 * job moved to another partition passes the same checks a job submitted
 * there would (MaxTime, AllowGroups, AllowAccounts, the limits of the new
 * partition's QOS) and its limits charge moves with it; administrators
 * keep their override.  Also: only Administrators (not Operators) set a
 * priority (finding 14), and absurd time limits are INFINITE (finding 20).
 */
#include <errno.h>
#include <pwd.h>

#include "ctld_inproc.h"

#include "ctld/acct/acct.h"
#include "ctld/policy/jlimits.h"
#include "common/timefmt.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "AccountingStorageEnforce=associations,limits,qos\n"
    "EnforcePartLimits=ALL\n"
    "DefMemPerCPU=1000\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=INFINITE\n"
    "PartitionName=dev Nodes=node[01-02] MaxTime=01:00:00 "
    "DefMemPerNode=5000 MaxMemPerNode=8000\n"
    "PartitionName=secure Nodes=node[01-02] MaxTime=INFINITE "
    "AllowGroups=root\n"
    "PartitionName=phys Nodes=node[01-02] MaxTime=INFINITE "
    "AllowAccounts=physics\n";

static const struct auth_id alice = {1001, 1001};
static const struct auth_id root = {0, 0};

/* The limits of the QOS each partition's jobs fall under: batch_qos for
 * batch, dev_qos for every other partition. */
static struct limits batch_qos, dev_qos;

static int chain(void *arg, const struct job *j, struct limits_level *lv,
                 bool *deny, struct err *e)
{
    (void)arg;
    (void)e;
    *deny = false;
    if (j->part == 0)
        lv[0] =
            (struct limits_level){LIMITS_QOS, "batch_qos", NULL, &batch_qos};
    else
        lv[0] = (struct limits_level){LIMITS_QOS, "dev_qos", NULL, &dev_qos};
    return 1;
}

/* A user in the accounting model (account root), by uid: the name this
 * host gives it, else the number; level: an AdminLevel or NULL. */
static void add_user(struct fx *f, uid_t uid, const char *level)
{
    struct passwd *pw = getpwuid(uid);
    char name[32];
    json_t *res = NULL;
    struct acct_req r = {.entity = "user", .flags = ACCT_REQ_ADMIN_LEVEL};
    struct err e;

    if (pw != NULL)
        snprintf(name, sizeof(name), "%s", pw->pw_name);
    else
        snprintf(name, sizeof(name), "%u", (unsigned)uid);
    r.names = json_pack("[s]", name);
    r.set = json_pack("[{s:s, s:s, s:s}]", "key", "Account", "op", "=", "value",
                      "root");
    if (level != NULL)
        json_array_append_new(r.set,
                              json_pack("{s:s, s:s, s:s}", "key", "AdminLevel",
                                        "op", "=", "value", level));
    if (acct_add(f->c->acct, &r, &res, &e) < 0)
        fail_msg("acct_add user %s: %s", name, e.text);
    json_decref(res);
    json_decref(r.names);
    json_decref(r.set);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];

    if (f == NULL || fx_make_dir(f) < 0)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir);
    if (fx_open(f, text) < 0)
        return -1;
    add_user(f, alice.uid, NULL);
    limits_init(&batch_qos);
    limits_init(&dev_qos);
    jlimits_set_chain(f->c->limits, chain, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* jobs_update of job id by who with set (JSON text): 0 or -1 with e. */
static int update(struct fx *f, uint64_t id, const struct auth_id *who,
                  const char *set, struct err *e)
{
    json_t *o = json_loads(set, 0, NULL);
    int rc;

    assert_non_null(o);
    err_clear(e);
    rc = jobs_update(f->c->jobs, fx_job(f, id), who->uid, o, e);
    json_decref(o);
    loop_flush(f->c->loop);
    return rc;
}

/* Audit repro (a): a held job with no time limit moved to a partition
 * whose MaxTime it exceeds is refused, as its submission there is. */
static void test_move_over_maxtime(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id;

    assert_int_equal(fx_submit(f,
                               "{\"script\": \"#!/bin/sh\", \"partition\": "
                               "\"dev\", \"time_limit_s\": \"INFINITE\"}",
                               &alice, &e),
                     0);
    assert_non_null(strstr(e.text, "MaxTime"));
    id = fx_submit(f,
                   "{\"script\": \"#!/bin/sh\", \"hold\": true, "
                   "\"time_limit_s\": \"INFINITE\"}",
                   &alice, &e);
    assert_int_not_equal(id, 0);
    assert_int_equal(update(f, id, &alice, "{\"partition\": \"dev\"}", &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "time limit INFINITE exceeds the MaxTime "
                                "01:00:00 of partition dev");
    assert_string_equal(f->conf->parts[fx_job(f, id)->part].name, "batch");
    assert_int_equal(fx_job(f, id)->time_limit_s, TIMEFMT_INFINITE);
    /* with a time limit that fits, in the same update, it moves */
    assert_int_equal(update(f, id, &alice,
                            "{\"partition\": \"dev\", \"time_limit_s\": 600}",
                            &e),
                     0);
    assert_string_equal(f->conf->parts[fx_job(f, id)->part].name, "dev");
    assert_int_equal(fx_job(f, id)->time_limit_s, 600);
}

/* An administrator's move is not held to MaxTime (as in Slurm). */
static void test_admin_override(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id =
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"hold\": true}", &alice, &e);

    assert_int_not_equal(id, 0);
    assert_int_equal(update(f, id, &root, "{\"partition\": \"dev\"}", &e), 0);
    assert_string_equal(f->conf->parts[fx_job(f, id)->part].name, "dev");
    assert_false(fx_job(f, id)->part_time_limit);
    /* access is the job owner's: not even root moves it where alice may
     * not go */
    assert_int_equal(update(f, id, &root, "{\"partition\": \"secure\"}", &e),
                     -1);
    assert_int_equal(errno, EPERM);
}

/* Audit repro (b): AllowGroups, and AllowAccounts, hold for a move. */
static void test_move_access_lists(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id;

    assert_int_equal(fx_submit(f,
                               "{\"script\": \"#!/bin/sh\", \"partition\": "
                               "\"secure\"}",
                               &alice, &e),
                     0);
    assert_non_null(strstr(e.text, "AllowGroups=root"));
    id = fx_submit(f,
                   "{\"script\": \"#!/bin/sh\", \"hold\": true, "
                   "\"partition\": \"dev\", \"time_limit_s\": 60}",
                   &alice, &e);
    assert_int_not_equal(id, 0);
    assert_int_equal(update(f, id, &alice, "{\"partition\": \"secure\"}", &e),
                     -1);
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(e.text, "(AllowGroups=root)"));
    assert_int_equal(update(f, id, &alice, "{\"partition\": \"phys\"}", &e),
                     -1);
    assert_non_null(strstr(e.text, "(AllowAccounts=physics)"));
    assert_string_equal(f->conf->parts[fx_job(f, id)->part].name, "dev");
}

#define SPEC_IN                                                                \
    "{\"script\": \"#!/bin/sh\", \"hold\": true, \"time_limit_s\": 60, "       \
    "\"partition\": \"%s\"}"

/* Audit finding 2(c): the new partition's limits apply, and the job's
 * charge moves from the old chain to the new one. */
static void test_move_limits_charge(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a, b;
    char text[160];

    dev_qos.max_submit_jobs_pu = 1;
    snprintf(text, sizeof(text), SPEC_IN, "dev");
    a = fx_submit(f, text, &alice, &e);
    assert_int_not_equal(a, 0);
    snprintf(text, sizeof(text), SPEC_IN, "batch");
    b = fx_submit(f, text, &alice, &e);
    assert_int_not_equal(b, 0);
    /* dev_qos is full: b may not join it */
    assert_int_equal(update(f, b, &alice, "{\"partition\": \"dev\"}", &e), -1);
    assert_int_equal(errno, EDQUOT);
    assert_non_null(strstr(e.text, "QOSMaxSubmitJobPerUserLimit"));
    /* a refused move keeps b counted where it was: batch_qos allows 2 */
    batch_qos.max_submit_jobs_pu = 2;
    assert_int_equal(update(f, a, &alice, "{\"partition\": \"batch\"}", &e), 0);
    /* a left dev_qos (room for b there) and joined batch_qos (now full) */
    snprintf(text, sizeof(text), SPEC_IN, "batch");
    assert_int_equal(fx_submit(f, text, &alice, &e), 0);
    assert_non_null(strstr(e.text, "2/2 jobs in batch_qos"));
    assert_int_equal(update(f, b, &alice, "{\"partition\": \"dev\"}", &e), 0);
    assert_string_equal(f->conf->parts[fx_job(f, b)->part].name, "dev");
}

/* Finding 14: an Operator manages jobs but sets no priority. */
static void test_priority_needs_administrator(void **state)
{
    struct fx *f = *state;
    const struct auth_id op = {1, 1}, adm = {2, 2};
    struct err e;
    uint64_t id =
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"hold\": true}", &alice, &e);

    if (getpwuid(op.uid) == NULL || getpwuid(adm.uid) == NULL)
        skip();
    add_user(f, op.uid, "Operator");
    add_user(f, adm.uid, "Administrator");
    assert_int_equal(update(f, id, &op, "{\"priority\": 99}", &e), -1);
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(e.text, "only an administrator"));
    assert_int_equal(update(f, id, &op, "{\"time_limit_s\": 60}", &e), 0);
    assert_int_equal(update(f, id, &adm, "{\"priority\": 99}", &e), 0);
    assert_int_equal(fx_job(f, id)->priority, 99);
    assert_true(acct_is_operator(f->c->acct, op.uid));
    assert_false(acct_is_administrator(f->c->acct, op.uid));
    assert_true(acct_is_administrator(f->c->acct, adm.uid));
    assert_true(acct_is_administrator(f->c->acct, 0));
}

/* Comment= (scontrol update, the REST API's POST job/{id}): the owner
 * changes it, "" clears it, a string too long is refused and changes
 * nothing, another user may not touch it. */
static void test_comment(void **state)
{
    struct fx *f = *state;
    const struct auth_id bob = {1002, 1002};
    struct err e;
    char big[1100];
    uint64_t id = fx_submit(f,
                            "{\"script\": \"#!/bin/sh\", \"hold\": true, "
                            "\"comment\": \"first\"}",
                            &alice, &e);

    assert_int_not_equal(id, 0);
    assert_string_equal(fx_job(f, id)->opt.comment, "first");
    assert_int_equal(update(f, id, &alice, "{\"comment\": \"second\"}", &e), 0);
    assert_string_equal(fx_job(f, id)->opt.comment, "second");
    memset(big, 'x', sizeof(big) - 3);
    big[0] = '"';
    big[sizeof(big) - 3] = '"';
    big[sizeof(big) - 2] = '\0';
    {
        char set[1200];
        snprintf(set, sizeof(set), "{\"comment\": %s}", big);
        assert_int_equal(update(f, id, &alice, set, &e), -1);
        assert_int_equal(errno, EINVAL);
    }
    assert_string_equal(fx_job(f, id)->opt.comment, "second");
    assert_int_equal(update(f, id, &bob, "{\"comment\": \"mine\"}", &e), -1);
    assert_int_equal(errno, EPERM);
    assert_int_equal(update(f, id, &alice, "{\"comment\": \"\"}", &e), 0);
    assert_null(fx_job(f, id)->opt.comment);
}

/* Finding 20: a time limit of a century or more is no limit, so that
 * start_time + limit cannot overflow. */
static void test_huge_time_limit_is_infinite(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f,
                            "{\"script\": \"#!/bin/sh\", \"hold\": true, "
                            "\"time_limit_s\": 9223372036854775806}",
                            &alice, &e);

    assert_int_not_equal(id, 0);
    assert_int_equal(fx_job(f, id)->time_limit_s, TIMEFMT_INFINITE);
    id = fx_submit(f,
                   "{\"script\": \"#!/bin/sh\", \"hold\": true, "
                   "\"time_limit_s\": 3153600000}",
                   &alice, &e);
    assert_int_equal(fx_job(f, id)->time_limit_s, 3153600000);
}

/* Finding 13: DefMemPerCPU / DefMemPerNode give a job without --mem a
 * limit; MaxMemPerNode refuses more, at submission and on a move. */
static void test_mem_defaults_and_max(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t a, b;

    a = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"cpus_per_task\": 2}",
                  &alice, &e);
    assert_int_not_equal(a, 0);
    assert_int_equal(fx_job(f, a)->mem_per_cpu_mib, 1000); /* the global */
    assert_int_equal(job_mem_per_node(fx_job(f, a)), 2000);
    b = fx_submit(f,
                  "{\"script\": \"#!/bin/sh\", \"partition\": \"dev\", "
                  "\"time_limit_s\": 60}",
                  &alice, &e);
    assert_int_equal(fx_job(f, b)->mem_mib, 5000); /* dev's own */
    assert_int_equal(fx_job(f, b)->mem_per_cpu_mib, 0);
    /* what the job asks for wins */
    b = fx_submit(f,
                  "{\"script\": \"#!/bin/sh\", \"partition\": \"dev\", "
                  "\"time_limit_s\": 60, \"mem_mib\": 7000}",
                  &alice, &e);
    assert_int_equal(fx_job(f, b)->mem_mib, 7000);
    assert_int_equal(fx_submit(f,
                               "{\"script\": \"#!/bin/sh\", \"partition\": "
                               "\"dev\", \"time_limit_s\": 60, \"mem_mib\": "
                               "9000}",
                               &alice, &e),
                     0);
    assert_string_equal(e.text, "requested 9000 MiB of memory per node but "
                                "partition dev allows at most 8000 "
                                "(MaxMemPerNode)");
    /* ... and so is a move there */
    a = fx_submit(f,
                  "{\"script\": \"#!/bin/sh\", \"hold\": true, \"mem_mib\": "
                  "9000, \"time_limit_s\": 60}",
                  &alice, &e);
    assert_int_equal(update(f, a, &alice, "{\"partition\": \"dev\"}", &e), -1);
    assert_non_null(strstr(e.text, "(MaxMemPerNode)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_move_over_maxtime, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_admin_override, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_access_lists, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_move_limits_charge, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_priority_needs_administrator,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_comment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_time_limit_is_infinite, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mem_defaults_and_max, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
