/*
 * JOB_QUERY's "fields" (ctld/rpc/job_rpc.c) against what squeue reads
 * (cli/jobview.c, jobview_fields): for jobs in several states, every
 * format letter and -O code shows the same text from a reply cut down to
 * the fields jobview_fields names as from the whole JOB.  A field missing
 * from a letter's list shows here as a difference.  Also: the reply holds
 * the fields asked for and job_id alone, job_to_json_fields builds each
 * field as job_to_json does, and a bad "fields" is refused.
 */
#include "ctld_inproc.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "cli/jobview.h"
#include "common/proto.h"
#include "ctld/job/job.h"
#include "ctld/rpc/rpc.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=72:00:00 "
    "DefaultTime=1:00:00\n";

static const struct auth_id alice = {1001, 1001};

/* The controller with its request handlers (ctld_listen on no socket). */
static int setup(void **state)
{
    struct err e;

    if (fx_setup_conf(state, conf_fmt) < 0)
        return -1;
    return ctld_listen(((struct fx *)*state)->c, -1, -1, -1, &e);
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* JOB_QUERY with body (taken), as alice: the reply's jobs (new
 * reference), or NULL with e set. */
static json_t *query(struct fx *f, json_t *body, struct err *e)
{
    struct proto_frame req = {.type = PROTO_MSG_JOB_QUERY, .body = body};
    json_t *reply = NULL, *jobs;
    int rc;

    err_clear(e);
    rc = rpc_dispatch(&f->c->rpc, NULL, &req, &alice, &reply, e);
    json_decref(body);
    if (rc < 0)
        return NULL;
    jobs = json_incref(json_object_get(reply, "jobs"));
    json_decref(reply);
    return jobs;
}

/* Every job of every state squeue shows differently: running (with
 * limits, GPUs, memory, an output pattern, a comment, a nice value), a
 * pending array with a throttle, a held job waiting on a dependency, a
 * completed one with an exit code, a pending one with tasks and an
 * exclusion. */
static void make_jobs(struct fx *f)
{
    struct err e;
    const size_t node = 0;
    struct job_end end = {3, 0, time(NULL), false};
    char spec[512];
    uint64_t run, done;

    run = fx_submit(f,
                    "{\"script\": \"#!/bin/sh\", \"name\": \"run1\", "
                    "\"time_limit_s\": 3600, \"std_out\": \"o-%j-%u-%x.txt\", "
                    "\"gres\": \"gpu:2\", \"mem_mib\": 1000, \"comment\": "
                    "\"c1\", \"nice\": 5}",
                    &alice, &e);
    assert_int_not_equal(run, 0);
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, run), &node, 1, time(NULL) - 90, &e),
        0);
    assert_int_not_equal(fx_submit(f,
                                   "{\"script\": \"#!/bin/sh\", \"array\": "
                                   "\"0-9%2\", \"hold\": true}",
                                   &alice, &e),
                         0);
    snprintf(spec, sizeof(spec),
             "{\"script\": \"#!/bin/sh\", \"hold\": true, \"dependency\": "
             "\"afterok:%llu\"}",
             (unsigned long long)run);
    assert_int_not_equal(fx_submit(f, spec, &alice, &e), 0);
    done = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"name\": \"done\"}",
                     &alice, &e);
    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, done), &node, 1, time(NULL), &e), 0);
    assert_int_equal(jobs_ended(f->c->jobs, fx_job(f, done), &end, &e), 0);
    assert_int_not_equal(fx_submit(f,
                                   "{\"script\": \"#!/bin/sh\", \"ntasks\": 2, "
                                   "\"cpus_per_task\": 2, \"exclude\": "
                                   "\"node02\", \"hold\": true}",
                                   &alice, &e),
                         0);
    loop_flush(f->c->loop);
}

/* The text of code for each job of full and of cut (same order) agree. */
static void assert_same_text(json_t *full, json_t *cut, char code, time_t now)
{
    assert_int_equal(json_array_size(full), json_array_size(cut));
    for (size_t i = 0; i < json_array_size(full); i++) {
        struct jobview_row a = {json_array_get(full, i), now};
        struct jobview_row b = {json_array_get(cut, i), now};
        char ba[1024], bb[1024];
        const char *va = jobview_value(code, &a, ba, sizeof(ba));
        const char *vb = jobview_value(code, &b, bb, sizeof(bb));
        if (strcmp(va, vb) != 0)
            fail_msg("code %d ('%c'), job %zu: \"%s\" from the whole JOB, "
                     "\"%s\" from the fields",
                     code, code > ' ' ? code : '?', i, va, vb);
    }
}

static void test_every_code_same_text(void **state)
{
    struct fx *f = *state;
    struct err e;
    time_t now = time(NULL);
    json_t *full;
    int checked = 0;

    make_jobs(f);
    full = query(f, json_object(), &e);
    assert_non_null(full);
    assert_int_equal(json_array_size(full), 5);
    for (int c = 1; c < 128; c++) {
        char code = (char)c;
        json_t *fields = jobview_fields(&code, 1), *cut;
        if (c > ' ' && strchr(JOBVIEW_LETTERS, c) != NULL)
            assert_non_null(fields); /* every letter is known */
        if (fields == NULL)
            continue;
        cut = query(f, json_pack("{s:o}", "fields", fields), &e);
        assert_non_null(cut);
        assert_same_text(full, cut, code, now);
        json_decref(cut);
        checked++;
    }
    /* the letters and the -O codes without a letter */
    assert_true(checked >= (int)strlen(JOBVIEW_LETTERS) + 20);
    json_decref(full);
}

static void test_reply_holds_fields_asked(void **state)
{
    struct fx *f = *state;
    struct err e;
    json_t *jobs, *job;

    make_jobs(f);
    jobs =
        query(f, json_pack("{s:[ss]}", "fields", "name", "no_such_field"), &e);
    assert_non_null(jobs);
    job = json_array_get(jobs, 0);
    assert_int_equal(json_object_size(job), 2); /* name, and job_id always */
    assert_string_equal(json_string_value(json_object_get(job, "name")),
                        "run1");
    assert_true(json_is_integer(json_object_get(job, "job_id")));
    json_decref(jobs);
}

/* job_to_json_fields builds each field as job_to_json does: asked for
 * every field the whole JOB has, the same JOB; asked for one, that field
 * (and job_id) with the same value. */
static void test_fields_built_alike(void **state)
{
    struct fx *f = *state;
    const struct conf *conf = f->c->conf;

    make_jobs(f);
    for (struct job *j = jobs_first(f->c->jobs); j != NULL; j = j->next) {
        json_t *full = job_to_json(j, conf, false), *all = json_object(), *v;
        json_t *cut;
        const char *k;

        json_object_foreach(full, k, v)
            json_object_set_new(all, k, json_true());
        cut = job_to_json_fields(j, conf, all);
        assert_true(json_equal(full, cut));
        json_decref(cut);
        json_object_foreach(full, k, v)
        {
            json_t *one = json_pack("{s:b}", k, 1);
            cut = job_to_json_fields(j, conf, one);
            assert_true(json_equal(json_object_get(cut, k), v));
            assert_int_equal(json_object_size(cut),
                             strcmp(k, "job_id") == 0 ? 1 : 2);
            json_decref(cut);
            json_decref(one);
        }
        json_decref(all);
        json_decref(full);
    }
}

static void test_bad_fields_refused(void **state)
{
    struct fx *f = *state;
    struct err e;

    json_t *many = json_array();

    assert_null(query(f, json_pack("{s:s}", "fields", "name"), &e));
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "fields: expected an array");
    assert_null(query(f, json_pack("{s:[si]}", "fields", "name", 3), &e));
    assert_int_equal(errno, EINVAL);
    assert_string_equal(e.text, "fields[1]: expected a string");
    for (int i = 0; i < 1001; i++)
        json_array_append_new(many, json_string("name"));
    assert_null(query(f, json_pack("{s:o}", "fields", many), &e));
    assert_string_equal(e.text, "fields: 1001 elements, at most 1000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_code_same_text, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reply_holds_fields_asked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_fields_built_alike, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_fields_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
