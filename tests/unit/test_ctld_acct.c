/*
 * The accounting model: what always exists, sacctmgr's add/modify/delete
 * as the wire carries them, the account tree and inherited QOS, the most
 * specific association, failed requests that change nothing, and a round
 * trip through the SQLite store on a temporary directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/acct/acct.h"
#include "ctld/acct/acct_store.h"
#include "ctld/core/persist.h"

static char dir[] = "/tmp/sluice-test-acct.XXXXXX";

/* A set array from "Key=Value" / "Key+=Value" words. */
static json_t *set_of(const char *const *kv)
{
    json_t *set = json_array();

    for (; kv && *kv; kv++) {
        const char *eq = strchr(*kv, '=');
        size_t klen = (size_t)(eq - *kv);
        char key[64], op[3] = "=";
        if (klen > 0 && ((*kv)[klen - 1] == '+' || (*kv)[klen - 1] == '-')) {
            op[0] = (*kv)[klen - 1];
            op[1] = '=';
            klen--;
        }
        snprintf(key, sizeof(key), "%.*s", (int)klen, *kv);
        json_array_append_new(set, json_pack("{s:s, s:s, s:s}", "key", key,
                                             "op", op, "value", eq + 1));
    }
    return set;
}

#define SET(...) set_of((const char *const[]){__VA_ARGS__, NULL})

static int do_add(struct acct *a, const char *entity, const char *names,
                  json_t *set, json_t **res, struct err *e)
{
    json_t *nv = json_array(), *out = NULL;
    char *copy = strdup(names), *save = NULL;
    struct acct_req r = {.entity = entity,
                         .names = nv,
                         .set = set,
                         .flags = ACCT_REQ_ADMIN_LEVEL};
    int rc;

    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
        json_array_append_new(nv, json_string(t));
    free(copy);
    rc = acct_add(a, &r, res ? res : &out, e);
    json_decref(out);
    json_decref(nv);
    json_decref(set);
    return rc;
}

static void add_ok(struct acct *a, const char *entity, const char *names,
                   json_t *set)
{
    struct err e;

    if (do_add(a, entity, names, set, NULL, &e) < 0)
        fail_msg("add %s %s: %s", entity, names, e.text);
}

static int do_modify(struct acct *a, const char *entity, json_t *where,
                     json_t *set, struct err *e)
{
    struct acct_req r = {.entity = entity,
                         .where = where,
                         .set = set,
                         .flags = ACCT_REQ_ADMIN_LEVEL};
    json_t *out = NULL;
    int rc = acct_modify(a, &r, &out, e);

    json_decref(out);
    json_decref(where);
    json_decref(set);
    return rc;
}

static void test_defaults(void **state)
{
    struct err e;
    struct acct *a = acct_create("quant-cluster", NULL, &e);
    const struct acct_assoc *root;

    (void)state;
    assert_non_null(a);
    assert_string_equal(acct_cluster_name(a), "quant-cluster");
    assert_non_null(acct_qos_find(a, "normal"));
    assert_non_null(acct_account_find(a, "root"));
    assert_true(acct_user_is_admin(a, "root"));
    assert_false(acct_user_is_admin(a, "nobody"));
    root = acct_account_assoc(a, "root");
    assert_non_null(root);
    assert_null(root->parent);
    assert_string_equal(acct_assoc_default_qos(root), "normal");
    assert_non_null(acct_assoc_find(a, "root", "root", NULL));
    assert_string_equal(acct_cluster_at(a, 0)->name, "quant-cluster");
    assert_null(acct_cluster_at(a, 1));
    acct_destroy(a);
}

/* The seed's lines, as sacctmgr sends them. */
static void seed(struct acct *a, json_t **res)
{
    struct err e;

    add_ok(a, "qos", "prod_qos", SET("Priority=1000"));
    add_ok(a, "qos", "backtest_qos", SET("Priority=500"));
    add_ok(a, "qos", "dev_qos", SET("Priority=100"));
    if (do_add(a, "user", "zhangsan", SET("qos=prod_qos,backtest_qos,dev_qos"),
               res, &e) < 0)
        fail_msg("add user: %s", e.text);
}

static void test_seed(void **state)
{
    struct err e;
    struct acct *a = acct_create("quant-cluster", NULL, &e);
    const struct acct_assoc *as;
    json_t *res = NULL;
    size_t n;
    char *const *q;
    uint64_t gen = acct_generation(a);

    (void)state;
    seed(a, &res);
    assert_true(acct_generation(a) > gen);
    assert_int_equal(acct_qos_find(a, "prod_qos")->priority, 1000);
    assert_int_equal(acct_qos_find(a, "backtest_qos")->priority, 500);
    assert_int_equal(acct_qos_find(a, "dev_qos")->priority, 100);
    /* no account given: "default" under root, and a note says so */
    assert_string_equal(acct_user_find(a, "zhangsan")->default_account,
                        "default");
    assert_string_equal(acct_account_find(a, "default")->parent, "root");
    assert_true(json_array_size(json_object_get(res, "notes")) == 1);
    json_decref(res);
    as = acct_assoc_find(a, "zhangsan", "default", NULL);
    assert_non_null(as);
    assert_ptr_equal(as->parent, acct_account_assoc(a, "default"));
    assert_ptr_equal(as->parent->parent, acct_account_assoc(a, "root"));
    q = acct_assoc_qos_list(as, &n);
    assert_int_equal(n, 3);
    assert_string_equal(q[0], "prod_qos");
    assert_true(acct_assoc_qos_allowed(as, "dev_qos"));
    assert_false(acct_assoc_qos_allowed(as, "normal"));
    /* the account's association inherits root's list */
    assert_true(acct_assoc_qos_allowed(as->parent, "normal"));
    /* adding the same again adds nothing and fails */
    assert_int_equal(do_add(a, "qos", "dev_qos", SET("Priority=1"), NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "dev_qos already exists"));
    acct_destroy(a);
}

static void test_most_specific(void **state)
{
    struct err e;
    struct acct *a = acct_create("c", NULL, &e);
    const struct acct_assoc *gen, *dev;

    (void)state;
    add_ok(a, "account", "quant", SET("Description=quant team"));
    add_ok(a, "account", "research", SET("Parent=quant", "GrpJobs=7"));
    add_ok(a, "user", "li", SET("Account=research", "MaxJobs=2"));
    add_ok(a, "user", "li",
           SET("Account=research", "Partition=dev", "MaxJobs=1"));
    gen = acct_assoc_find(a, "li", "research", NULL);
    dev = acct_assoc_find(a, "li", "research", "dev");
    assert_non_null(gen);
    assert_non_null(dev);
    assert_ptr_not_equal(gen, dev);
    assert_int_equal(dev->limits.max_jobs_pu, 1);
    assert_int_equal(gen->limits.max_jobs_pu, 2);
    assert_ptr_equal(acct_assoc_find(a, "li", "research", "prod"), gen);
    assert_null(acct_assoc_find(a, "li", "quant", NULL));
    assert_string_equal(dev->partition, "dev");
    /* parent chain: li -> research -> quant -> root */
    assert_string_equal(gen->parent->account, "research");
    assert_int_equal(gen->parent->limits.grp_jobs, 7);
    assert_string_equal(gen->parent->parent->account, "quant");
    assert_string_equal(gen->parent->parent->parent->account, "root");
    assert_null(gen->parent->parent->parent->parent);
    assert_string_equal(acct_account_find(a, "quant")->description,
                        "quant team");
    acct_destroy(a);
}

static void test_bad_input_changes_nothing(void **state)
{
    struct err e;
    struct acct *a = acct_create("c", NULL, &e);
    uint64_t gen;

    (void)state;
    add_ok(a, "qos", "dev_qos", SET("Priority=100"));
    gen = acct_generation(a);
    assert_int_equal(do_add(a, "qos", "x_qos,y_qos",
                            SET("Priority=5", "MaxWall=1:99:00"), NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "MaxWall=1:99:00"));
    assert_null(acct_qos_find(a, "x_qos"));
    assert_int_equal(do_add(a, "qos", "z_qos", SET("Bogus=1"), NULL, &e), -1);
    assert_non_null(strstr(e.text, "Bogus"));
    assert_int_equal(do_add(a, "user", "wang", SET("Account=nosuch"), NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "nosuch"));
    assert_null(acct_user_find(a, "wang"));
    assert_int_equal(do_add(a, "qos", "q", SET("GrpTRES=gres/tpu=2"), NULL, &e),
                     -1);
    assert_non_null(strstr(e.text, "gres/tpu"));
    assert_int_equal(do_modify(a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
                               SET("Priority=7", "Preempt=nosuch"), &e),
                     -1);
    assert_int_equal(acct_qos_find(a, "dev_qos")->priority, 100);
    assert_int_equal(acct_generation(a), gen);
    acct_destroy(a);
}

static void test_modify_limits(void **state)
{
    struct err e;
    struct acct *a = acct_create("c", NULL, &e);
    const struct acct_qos *q;
    const struct acct_assoc *as;

    (void)state;
    seed(a, NULL);
    assert_int_equal(
        do_modify(a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
                  SET("MaxSubmitJobsPerUser=3", "GrpTRES=gres/gpu=2,cpu=8",
                      "MaxWall=1-00:00:00", "Flags=DenyOnLimit",
                      "Preempt=backtest_qos", "UsageFactor=0.5"),
                  &e),
        0);
    q = acct_qos_find(a, "dev_qos");
    assert_int_equal(q->limits.max_submit_jobs_pu, 3);
    assert_int_equal(q->limits.grp_tres[LIMITS_TRES_GPU], 2);
    assert_int_equal(q->limits.grp_tres[LIMITS_TRES_CPU], 8);
    assert_int_equal(q->limits.max_wall_s, 86400);
    assert_true(q->flags & ACCT_QOS_DENY_ON_LIMIT);
    assert_int_equal(q->n_preempt, 1);
    assert_true(q->usage_factor == 0.5);
    assert_int_equal(do_modify(a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
                               SET("MaxSubmitJobsPerUser=-1", "GrpTRES=cpu=-1"),
                               &e),
                     0);
    q = acct_qos_find(a, "dev_qos");
    assert_true(q->limits.max_submit_jobs_pu == LIMITS_UNSET);
    assert_true(q->limits.grp_tres[LIMITS_TRES_CPU] == LIMITS_UNSET);
    assert_int_equal(q->limits.grp_tres[LIMITS_TRES_GPU], 2);
    /* the seed's modify user line */
    assert_int_equal(do_modify(a, "user",
                               json_pack("{s:s}", "Name", "zhangsan"),
                               SET("qos-=prod_qos", "DefaultQOS=dev_qos"), &e),
                     0);
    as = acct_assoc_find(a, "zhangsan", "default", NULL);
    assert_false(acct_assoc_qos_allowed(as, "prod_qos"));
    assert_string_equal(acct_assoc_default_qos(as), "dev_qos");
    /* a default outside the list is refused */
    assert_int_equal(do_modify(a, "user",
                               json_pack("{s:s}", "Name", "zhangsan"),
                               SET("DefaultQOS=prod_qos"), &e),
                     -1);
    assert_non_null(strstr(e.text, "DefaultQOS=prod_qos"));
    acct_destroy(a);
}

static void test_delete(void **state)
{
    struct err e;
    struct acct *a = acct_create("c", NULL, &e);
    struct acct_req r = {.entity = "qos"};
    json_t *out = NULL;

    (void)state;
    seed(a, NULL);
    r.where = json_pack("{s:s}", "Name", "dev_qos");
    assert_int_equal(acct_delete(a, &r, &out, &e), 0);
    json_decref(out);
    json_decref(r.where);
    assert_null(acct_qos_find(a, "dev_qos"));
    assert_false(acct_assoc_qos_allowed(
        acct_assoc_find(a, "zhangsan", "default", NULL), "dev_qos"));
    r.entity = "user";
    r.where = json_pack("{s:s}", "Name", "root");
    assert_int_equal(acct_delete(a, &r, &out, &e), -1);
    json_decref(r.where);
    r.where = json_pack("{s:s}", "Name", "zhangsan");
    assert_int_equal(acct_delete(a, &r, &out, &e), 0);
    json_decref(out);
    json_decref(r.where);
    assert_null(acct_user_find(a, "zhangsan"));
    assert_null(acct_assoc_find(a, "zhangsan", "default", NULL));
    acct_destroy(a);
}

static void test_store_round_trip(void **state)
{
    struct err e;
    struct persist *p;
    struct acct_store *s;
    struct acct *a;
    const struct acct_assoc *as;
    json_t *l1, *l2;
    struct acct_req r = {.entity = "association"};

    (void)state;
    strcpy(dir, "/tmp/sluice-test-acct.XXXXXX");
    assert_non_null(mkdtemp(dir));
    p = persist_open(dir, &e);
    assert_non_null(p);
    s = acct_store_open(p, &e);
    assert_non_null(s);
    a = acct_create("quant-cluster", s, &e);
    assert_non_null(a);
    seed(a, NULL);
    add_ok(a, "user", "boss", SET("Account=root", "AdminLevel=Operator"));
    assert_int_equal(do_modify(a, "qos", json_pack("{s:s}", "Name", "dev_qos"),
                               SET("GrpTRES=gres/gpu=2", "Flags=NoDecay",
                                   "PreemptExemptTime=5:00"),
                               &e),
                     0);
    l1 = acct_list(a, &r, &e);
    assert_int_equal(persist_commit(p, &e), 0);
    acct_destroy(a);
    acct_store_close(s);
    persist_close(p);

    p = persist_open(dir, &e);
    s = acct_store_open(p, &e);
    a = acct_create("quant-cluster", s, &e);
    assert_non_null(a);
    assert_int_equal(acct_qos_find(a, "prod_qos")->priority, 1000);
    assert_int_equal(
        acct_qos_find(a, "dev_qos")->limits.grp_tres[LIMITS_TRES_GPU], 2);
    assert_int_equal(acct_qos_find(a, "dev_qos")->preempt_exempt_time_s, 300);
    assert_true(acct_qos_find(a, "dev_qos")->flags & ACCT_QOS_NO_DECAY);
    assert_int_equal(acct_user_find(a, "boss")->admin, ACCT_ADMIN_OPERATOR);
    as = acct_assoc_find(a, "zhangsan", "default", NULL);
    assert_non_null(as);
    assert_true(acct_assoc_qos_allowed(as, "backtest_qos"));
    l2 = acct_list(a, &r, &e);
    assert_true(json_equal(l1, l2));
    /* a new QOS after the restart gets a fresh id */
    add_ok(a, "qos", "late_qos", SET("Priority=1"));
    assert_true(acct_qos_find(a, "late_qos")->id >
                acct_qos_find(a, "dev_qos")->id);
    json_decref(l1);
    json_decref(l2);
    acct_destroy(a);
    acct_store_close(s);
    persist_close(p);
    {
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_seed),
        cmocka_unit_test(test_most_specific),
        cmocka_unit_test(test_bad_input_changes_nothing),
        cmocka_unit_test(test_modify_limits),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_store_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
