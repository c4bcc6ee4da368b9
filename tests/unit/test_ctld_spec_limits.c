/*
 * The controller's own size limits on what a submission or an update may
 * store (audit finding 9: the CLI's checks alone let a raw client store
 * a 15 MiB script per job), and reasons cut on a character boundary
 * (finding 20).  Driven in-process through jobs_submit and jobs_update.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/ctld.h"
#include "ctld_inproc.h"
#include "ctld/queue/jobs.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "%s"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=72:00:00\n";

static const struct auth_id alice = {1001, 1001};

static int setup_conf(void **state, const char *extra)
{
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];

    if (fx_make_dir(f) < 0)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir, extra);
    if (fx_open(f, text) < 0)
        return -1;
    *state = f;
    return 0;
}

/* A small max_script_size keeps the script cases cheap. */
static int setup(void **state)
{
    return setup_conf(state, "SchedulerParameters=bf_continue,"
                             "max_script_size=1000\n");
}

static int setup_default(void **state)
{
    return setup_conf(state, "");
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* n bytes: prefix then 'a's. */
static char *filled(const char *prefix, size_t n)
{
    char *s = malloc(n + 1);

    memset(s, 'a', n);
    memcpy(s, prefix, strlen(prefix));
    s[n] = '\0';
    return s;
}

/* Submit a valid spec with key set to v (stolen); the error or NULL. */
static const char *submit_with(struct fx *f, const char *key, json_t *v,
                               struct err *e)
{
    json_t *o = json_pack("{s:s, s:s}", "script", "#!/bin/sh\ntrue\n",
                          "work_dir", "/tmp"),
           *reply = NULL;
    int rc;

    json_object_set_new(o, key, v);
    err_clear(e);
    rc = jobs_submit(f->c->jobs, o, &alice, &reply, e);
    json_decref(o);
    json_decref(reply);
    loop_flush(f->c->loop);
    return rc == 0 ? NULL : e->text;
}

static json_t *str_n(const char *prefix, size_t n)
{
    char *s = filled(prefix, n);
    json_t *v = json_string(s);

    free(s);
    return v;
}

/* Every string field: at its limit accepted where the value is
 * otherwise valid, one byte over refused with field and limit named. */
static void test_string_fields(void **state)
{
    static const struct {
        const char *key, *prefix;
        size_t max;
        bool ok_at_max; /* a value of max bytes is otherwise valid */
    } t[] = {
        {"name", "", 1024, true},       {"std_out", "/", 4096, true},
        {"std_err", "/", 4096, true},   {"work_dir", "/", 4096, true},
        {"account", "", 1024, false},   {"qos", "", 1024, false},
        {"partition", "", 1024, false}, {"nodelist", "", 4096, false},
        {"exclude", "", 4096, false},   {"gres", "", 1024, false},
        {"gpus", "", 1024, false},      {"dependency", "", 4096, false},
        {"array", "", 8192, false},
    };
    struct fx *f = *state;
    struct err e;
    char want[128];

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const char *err =
            submit_with(f, t[i].key, str_n(t[i].prefix, t[i].max + 1), &e);
        snprintf(want, sizeof(want), "job %s is %zu bytes, the limit is %zu",
                 t[i].key, t[i].max + 1, t[i].max);
        assert_non_null(err);
        assert_string_equal(err, want);
        err = submit_with(f, t[i].key, str_n(t[i].prefix, t[i].max), &e);
        if (t[i].ok_at_max)
            assert_null(err);
        else
            assert_null(err == NULL ? NULL : strstr(err, "the limit is"));
    }
}

static void test_script_size(void **state)
{
    struct fx *f = *state;
    struct err e;
    char *s;

    assert_int_equal(f->conf->max_script_size, 1000);
    s = filled("#!/bin/sh\n#", 1000);
    assert_null(submit_with(f, "script", json_string(s), &e));
    free(s);
    s = filled("#!/bin/sh\n#", 1001);
    assert_string_equal(submit_with(f, "script", json_string(s), &e),
                        "job script is 1001 bytes, the limit is 1000 "
                        "(SchedulerParameters=max_script_size)");
    free(s);
    /* nothing of the refused job was kept */
    assert_int_equal(jobs_active_tasks(f->c->jobs), 1);
}

static void test_script_size_default(void **state)
{
    struct fx *f = *state;
    struct err e;
    char *s;

    assert_int_equal(f->conf->max_script_size, 4u << 20);
    s = filled("#!/bin/sh\n#", (4u << 20) + 1);
    assert_string_equal(submit_with(f, "script", json_string(s), &e),
                        "job script is 4194305 bytes, the limit is 4194304 "
                        "(SchedulerParameters=max_script_size)");
    free(s);
    assert_int_equal(jobs_active_tasks(f->c->jobs), 0);
}

static void test_argv_env(void **state)
{
    struct fx *f = *state;
    json_t *a, *env;
    struct err e;
    char name[32];

    a = json_array();
    for (int i = 0; i < 4097; i++)
        json_array_append_new(a, json_string("x"));
    assert_string_equal(submit_with(f, "argv", a, &e),
                        "job argv has 4097 arguments, the limit is 4096");
    assert_string_equal(
        submit_with(f, "argv", json_pack("[s, o]", "a", str_n("", 131073)), &e),
        "job argv[1] is 131073 bytes, the limit is 131072");
    a = json_array();
    for (int i = 0; i < 9; i++)
        json_array_append_new(a, str_n("", 120000));
    assert_string_equal(submit_with(f, "argv", a, &e),
                        "job argv is 1080009 bytes, the limit is 1048576");

    env = json_object();
    for (int i = 0; i < 8193; i++) {
        snprintf(name, sizeof(name), "V%d", i);
        json_object_set_new(env, name, json_string(""));
    }
    assert_string_equal(submit_with(f, "environment", env, &e),
                        "job environment has 8193 variables, the limit is "
                        "8192");
    assert_string_equal(
        submit_with(f, "environment",
                    json_pack("{s:o}", "BIG", str_n("", 131069)), &e),
        "job environment variable BIG is 131073 bytes, the limit is 131072");
    env = json_object();
    for (int i = 0; i < 9; i++) {
        snprintf(name, sizeof(name), "V%d", i);
        json_object_set_new(env, name, str_n("", 120000));
    }
    assert_string_equal(submit_with(f, "environment", env, &e),
                        "job environment is 1080036 bytes, the limit is "
                        "1048576");
    env = json_pack("{s:o, s:s}", "BIG", str_n("", 131068), "PATH", "/bin");
    assert_null(submit_with(f, "environment", env, &e));
}

static void test_update_limits(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\\n\", \"hold\": true}",
                            &alice, &e);
    struct job *j = jobs_find(f->c->jobs, id);
    json_t *set;

    assert_non_null(j);
    set = json_pack("{s:o}", "name", str_n("", 5000));
    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, set, &e), -1);
    assert_string_equal(e.text, "job name is 5000 bytes, the limit is 1024");
    json_decref(set);
    set = json_pack("{s:o}", "dependency", str_n("afterok:", 5000));
    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, set, &e), -1);
    assert_string_equal(e.text,
                        "job dependency is 5000 bytes, the limit is 4096");
    json_decref(set);
    assert_string_equal(j->name, "sbatch");
}

/* A reason longer than its buffer, of 3-byte characters: whatever the
 * alignment, it is cut on a character boundary and still reaches the
 * JOB object (finding 20). */
static void test_reason_cut_on_boundary(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\\n\", \"hold\": true}",
                            &alice, &e);
    struct job *j = jobs_find(f->c->jobs, id);

    assert_non_null(j);
    for (int pad = 0; pad < 3; pad++) {
        char text[1200];
        json_t *o, *r;
        snprintf(text, sizeof(text), "launch failed: %.*s", pad, "yy");
        while (strlen(text) + 3 < sizeof(text))
            strcat(text, "\xe6\x97\xa5"); /* U+65E5 */
        job_set_reason_text(j, "%s", text);
        o = job_to_json(j, f->conf, true);
        r = json_object_get(o, "state_reason");
        assert_true(json_is_string(r));
        assert_true(json_string_length(r) >= 509);
        assert_int_equal(strncmp(json_string_value(r), text, 15), 0);
        json_decref(o);
    }
}

static void test_bad_max_script_size(void **state)
{
    static const char *const bad[] = {
        "max_script_size=0", "max_script_size=abc",
        "max_script_size=", "bf_continue,max_script_size=16777217"};
    char text[512];
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct conf *c;
        snprintf(text, sizeof(text),
                 "ClusterName=t\nSlurmctldHost=localhost\n"
                 "SchedulerParameters=%s\n",
                 bad[i]);
        c = conf_parse_string(text, "t.conf", NULL, &e);
        assert_null(c);
        assert_non_null(strstr(e.text, "max_script_size="));
        assert_non_null(strstr(e.text, "want bytes from 1 to 16777216"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_string_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_size_default, setup_default,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_argv_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reason_cut_on_boundary, setup,
                                        teardown),
        cmocka_unit_test(test_bad_max_script_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
