/*
 * The limit chain over the accounting model (jchain.h), in memory: which
 * levels apply to a job and in what order (partition QOS, job QOS, user
 * association, accounts up to root), OverPartQOS and DenyOnLimit, the
 * association of the job's partition before the general one, the cache
 * following model changes, and the errors.  Then, through a controller
 * on a temporary directory, usage rebuilt from the recovered jobs.
 */
#include <errno.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <event2/event.h>

#include "ctld/acct/acct.h"
#include "ctld/ctld.h"
#include "ctld/sched/sched_drv.h"
#include "ctld/policy/jchain.h"
#include "ctld/policy/jlimits.h"
#include "ctld/queue/jobs.h"

static const char conf_text[] = "ClusterName=c\n"
                                "SlurmctldHost=localhost(127.0.0.1)\n"
                                "NodeName=n[1-2] CPUs=8 RealMemory=8000\n"
                                "PartitionName=batch Nodes=n1 Default=YES\n"
                                "PartitionName=dev Nodes=n2 QOS=part_qos\n"
                                "PartitionName=gone Nodes=n2 QOS=nosuch_qos\n";

struct fx {
    struct conf *conf;
    struct acct *a;
    struct jchain *jc;
    struct job j;
};

/* A set array from "Key=Value" words. */
static json_t *set_of(const char *const *kv)
{
    json_t *set = json_array();

    for (; kv && *kv; kv++) {
        const char *eq = strchr(*kv, '=');
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
        json_array_append_new(set, json_pack("{s:s, s:s, s:s}", "key", key,
                                             "op", "=", "value", eq + 1));
    }
    return set;
}

#define SET(...) set_of((const char *const[]){__VA_ARGS__, NULL})

static void add(struct acct *a, const char *entity, const char *name,
                json_t *set)
{
    struct acct_req r = {.entity = entity,
                         .names = json_pack("[s]", name),
                         .set = set,
                         .flags = ACCT_REQ_ADMIN_LEVEL};
    json_t *out = NULL;
    struct err e;

    if (acct_add(a, &r, &out, &e) < 0)
        fail_msg("add %s %s: %s", entity, name, e.text);
    json_decref(out);
    json_decref(r.names);
    json_decref(set);
}

static void modify(struct acct *a, const char *entity, json_t *where,
                   json_t *set)
{
    struct acct_req r = {.entity = entity,
                         .where = where,
                         .set = set,
                         .flags = ACCT_REQ_ADMIN_LEVEL};
    json_t *out = NULL;
    struct err e;

    if (acct_modify(a, &r, &out, &e) < 0)
        fail_msg("modify %s: %s", entity, e.text);
    json_decref(out);
    json_decref(where);
    json_decref(set);
}

/* root -> quant -> research; li in research (and its dev association);
 * QOS dev_qos and part_qos (the dev partition's). */
static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;

    f->conf = conf_parse_string(conf_text, "test.conf", NULL, &e);
    f->a = acct_create("c", NULL, &e);
    if (f->conf == NULL || f->a == NULL)
        return -1;
    add(f->a, "qos", "dev_qos", SET("MaxJobsPerUser=2"));
    add(f->a, "qos", "part_qos", SET("MaxJobsPerUser=5"));
    add(f->a, "account", "quant", SET("GrpJobs=9"));
    add(f->a, "account", "research", SET("Parent=quant"));
    add(f->a, "user", "li",
        SET("Account=research", "MaxJobs=3", "QOS=normal,dev_qos"));
    add(f->a, "user", "li", SET("Account=research", "Partition=dev"));
    f->jc = jchain_create(f->a, f->conf);
    f->j = (struct job){.id = 7,
                        .user_name = "li",
                        .account = "research",
                        .qos = "dev_qos",
                        .part = 0};
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    jchain_destroy(f->jc);
    acct_destroy(f->a);
    conf_destroy(f->conf);
    free(f);
    return 0;
}

static int levels(struct fx *f, struct limits_level *lv, bool *deny)
{
    struct err e;
    int n = jchain_levels(f->jc, &f->j, lv, deny, &e);

    if (n < 0)
        fail_msg("jchain_levels: %s", e.text);
    return n;
}

static void assert_level(const struct limits_level *l, enum limits_kind k,
                         const char *name)
{
    assert_int_equal(l->kind, k);
    assert_string_equal(l->name, name);
    assert_non_null(l->lim);
}

/* Job QOS, then li's association, research, quant, root. */
static void test_chain_order(void **state)
{
    struct fx *f = *state;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    const struct acct_assoc *as = acct_assoc_find(f->a, "li", "research", NULL);
    char id[16];
    bool deny = true;

    assert_int_equal(levels(f, lv, &deny), 5);
    assert_false(deny);
    assert_level(&lv[0], LIMITS_QOS, "dev_qos");
    assert_null(lv[0].key);
    assert_int_equal(lv[0].lim->max_jobs_pu, 2);
    assert_level(&lv[1], LIMITS_ASSOC, "research");
    snprintf(id, sizeof(id), "%u", (unsigned)as->id);
    assert_string_equal(lv[1].key, id);
    assert_int_equal(lv[1].lim->max_jobs_pu, 3);
    assert_level(&lv[2], LIMITS_ASSOC, "research");
    assert_string_not_equal(lv[2].key, lv[1].key);
    assert_level(&lv[3], LIMITS_ASSOC, "quant");
    assert_int_equal(lv[3].lim->grp_jobs, 9);
    assert_level(&lv[4], LIMITS_ASSOC, "root");
}

/* In dev: the partition QOS first, li's dev association (not the
 * general one); with OverPartQOS the job's QOS goes first. */
static void test_partition_qos_and_over_part(void **state)
{
    struct fx *f = *state;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    const struct acct_assoc *dev =
        acct_assoc_find(f->a, "li", "research", "dev");
    char id[16];
    bool deny;

    f->j.part = 1;
    assert_int_equal(levels(f, lv, &deny), 6);
    assert_level(&lv[0], LIMITS_QOS, "part_qos");
    assert_level(&lv[1], LIMITS_QOS, "dev_qos");
    snprintf(id, sizeof(id), "%u", (unsigned)dev->id);
    assert_string_equal(lv[2].key, id);
    modify(f->a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
           SET("Flags=OverPartQOS"));
    assert_int_equal(levels(f, lv, &deny), 6);
    assert_level(&lv[0], LIMITS_QOS, "dev_qos");
    assert_level(&lv[1], LIMITS_QOS, "part_qos");
    /* the same QOS as partition and job QOS counts once */
    f->j.qos = "part_qos";
    assert_int_equal(levels(f, lv, &deny), 5);
    assert_level(&lv[0], LIMITS_QOS, "part_qos");
    assert_int_equal(lv[1].kind, LIMITS_ASSOC);
}

/* DenyOnLimit on the job's QOS or on the partition QOS. */
static void test_deny_on_limit(void **state)
{
    struct fx *f = *state;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    bool deny;

    modify(f->a, "qos", json_pack("{s:s}", "Name", "part_qos"),
           SET("Flags=DenyOnLimit"));
    levels(f, lv, &deny);
    assert_false(deny); /* batch has no partition QOS */
    f->j.part = 1;
    levels(f, lv, &deny);
    assert_true(deny);
    f->j.part = 0;
    modify(f->a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
           SET("Flags=DenyOnLimit"));
    levels(f, lv, &deny);
    assert_true(deny);
}

/* A change of the model is seen at the next call: new values, and
 * levels that point into the new records. */
static void test_follows_model_changes(void **state)
{
    struct fx *f = *state;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    bool deny;

    levels(f, lv, &deny);
    assert_int_equal(lv[0].lim->max_jobs_pu, 2);
    modify(f->a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
           SET("MaxJobsPerUser=4"));
    modify(f->a, "user", json_pack("{s:s}", "Name", "li"), SET("MaxJobs=1"));
    levels(f, lv, &deny);
    assert_int_equal(lv[0].lim->max_jobs_pu, 4);
    assert_int_equal(lv[1].lim->max_jobs_pu, 1);
    /* a partition QOS added later is used from then on */
    f->j.part = 2;
    assert_int_equal(levels(f, lv, &deny), 5);
    add(f->a, "qos", "nosuch_qos", SET("GrpJobs=1"));
    assert_int_equal(levels(f, lv, &deny), 6);
    assert_level(&lv[0], LIMITS_QOS, "nosuch_qos");
}

/* No association (a user unknown to accounting, or one deleted since):
 * the QOS levels only.  A QOS that no longer exists is an error. */
static void test_missing(void **state)
{
    struct fx *f = *state;
    struct limits_level lv[LIMITS_LEVEL_MAX];
    bool deny;
    struct err e;

    f->j.user_name = "stranger";
    assert_int_equal(levels(f, lv, &deny), 1);
    f->j.account = NULL;
    assert_int_equal(levels(f, lv, &deny), 1);
    f->j.qos = "deleted_qos";
    assert_int_equal(jchain_levels(f->jc, &f->j, lv, &deny, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "job 7: its QOS deleted_qos no longer exists");
}

/* ---- through a controller -------------------------------------------- */

static const char ctld_conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "AccountingStorageEnforce=associations,limits,qos\n"
    "NodeName=node01 CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node01 Default=YES MaxTime=72:00:00\n";

struct cfx {
    char dir[64];
    struct conf *conf;
    struct event_base *base;
    struct ctld *c;
    char user[64];
    struct auth_id who;
};

static void cfx_start(struct cfx *f)
{
    struct err e;

    f->c = ctld_create(f->conf, NULL, f->base, &e);
    if (f->c == NULL)
        fail_msg("ctld_create: %s", e.text);
    sched_drv_unpaced(f->c->sched); /* outcomes independent of speed */
}

static uint64_t submit(struct cfx *f, const char *qos, struct err *e)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "script", "#!/bin/sh\n", "qos",
                          qos, "time_limit_s", 600),
           *reply = NULL;
    uint64_t id = 0;

    err_clear(e);
    if (jobs_submit(f->c->jobs, o, &f->who, &reply, e) == 0) {
        id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
        json_decref(reply);
    }
    json_decref(o);
    loop_flush(f->c->loop);
    return id;
}

/* The chain is set by ctld_create: a QOS limit made with sacctmgr's
 * requests refuses the third job, holds the second by MaxJobsPerUser,
 * and after a restart the recovered jobs count again. */
static void test_ctld_chain_and_restart(void **state)
{
    struct cfx *f = calloc(1, sizeof(*f));
    struct passwd *pw = getpwuid(getuid());
    char text[1024], cmd[128];
    const size_t node = 0;
    struct err e;
    uint64_t a, b;

    (void)state;
    strcpy(f->dir, "/tmp/sluice-test-jchain.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(text, sizeof(text), ctld_conf_fmt, f->dir);
    f->conf = conf_parse_string(text, "test.conf", NULL, &e);
    assert_non_null(f->conf);
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    snprintf(f->user, sizeof(f->user), "%s", pw ? pw->pw_name : "root");
    f->who = (struct auth_id){getuid(), getgid()};
    cfx_start(f);
    assert_true(jlimits_enforced(f->c->limits));
    assert_int_equal(loop_write(f->c->loop, &e),
                     0); /* the accounting changes */
    add(f->c->acct, "qos", "dev_qos",
        SET("MaxSubmitJobsPerUser=2", "MaxJobsPerUser=1"));
    if (acct_assoc_find(f->c->acct, f->user, "root", NULL) == NULL)
        add(f->c->acct, "user", f->user, SET("Account=root"));
    modify(f->c->acct, "user", json_pack("{s:s}", "Name", f->user),
           SET("QOS=normal,dev_qos"));
    a = submit(f, "dev_qos", &e);
    b = submit(f, "dev_qos", &e);
    assert_int_not_equal(a, 0);
    assert_int_not_equal(b, 0);
    assert_int_equal(submit(f, "dev_qos", &e), 0);
    assert_non_null(strstr(e.text, "QOSMaxSubmitJobPerUserLimit: "));
    assert_non_null(strstr(e.text, " has 2/2 jobs in dev_qos"));
    assert_int_equal(
        jobs_start(f->c->jobs, jobs_find(f->c->jobs, a), &node, 1, 100, &e), 0);
    loop_want_pass(f->c->loop);
    loop_flush(f->c->loop);
    assert_string_equal(job_reason(jobs_find(f->c->jobs, b)),
                        "QOSMaxJobsPerUserLimit");
    snprintf(text, sizeof(text),
             "QOSMaxJobsPerUserLimit; user %s in dev_qos has 1/1 jobs running",
             f->user);
    assert_string_equal(jobs_find(f->c->jobs, b)->reason_detail, text);
    /* restart: the two recovered jobs fill MaxSubmitJobsPerUser again and
     * the running one still holds the pending one */
    ctld_destroy(f->c);
    cfx_start(f);
    assert_int_equal(submit(f, "dev_qos", &e), 0);
    assert_non_null(strstr(e.text, " has 2/2 jobs in dev_qos"));
    loop_want_pass(f->c->loop);
    loop_flush(f->c->loop);
    assert_string_equal(job_reason(jobs_find(f->c->jobs, b)),
                        "QOSMaxJobsPerUserLimit");
    /* raising the limit releases it at the next pass */
    assert_int_equal(loop_write(f->c->loop, &e), 0);
    modify(f->c->acct, "qos", json_pack("{s:s}", "Name", "dev_qos"),
           SET("MaxJobsPerUser=2"));
    loop_want_pass(f->c->loop);
    loop_flush(f->c->loop);
    assert_string_not_equal(job_reason(jobs_find(f->c->jobs, b)),
                            "QOSMaxJobsPerUserLimit");
    ctld_destroy(f->c);
    conf_destroy(f->conf);
    event_base_free(f->base);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_chain_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_qos_and_over_part, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_deny_on_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_follows_model_changes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
        cmocka_unit_test(test_ctld_chain_and_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
