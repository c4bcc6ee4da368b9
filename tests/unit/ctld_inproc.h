/*
 * The in-process controller fixture of the tests/unit/test_ctld_*.c that
 * drive sluicectld's modules directly (no process, no sockets): a private
 * state directory, a configuration, an event base and a controller run
 * unpaced (sched_drv_unpaced), so that outcomes never depend on the
 * machine's speed.  Each test formats its own configuration with f->dir
 * as StateSaveLocation between fx_make_dir and fx_open.
 */
#ifndef SLUICE_TEST_CTLD_INPROC_H
#define SLUICE_TEST_CTLD_INPROC_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/queue/jobs.h"
#include "ctld/sched/sched_drv.h"

struct fx {
    char dir[64]; /* the state directory, removed by fx_close */
    struct conf *conf;
    struct event_base *base;
    struct ctld *c;
};

/* fx_make_dir: f->dir, a fresh directory under /tmp; 0 or -1. */
static int fx_make_dir(struct fx *f)
{
    strcpy(f->dir, "/tmp/sluice-test-ctld.XXXXXX");
    return mkdtemp(f->dir) == NULL ? -1 : 0;
}

/* fx_start: a controller on f->conf and f->base (again after a restart
 * test's ctld_destroy); fails the test if it cannot be made. */
static void fx_start(struct fx *f)
{
    struct err e;

    f->c = ctld_create(f->conf, NULL, f->base, &e);
    if (f->c == NULL)
        fail_msg("ctld_create: %s", e.text);
    sched_drv_unpaced(f->c->sched); /* outcomes independent of speed */
}

/* fx_open: parse the configuration text, make the event base, start the
 * controller; 0, or -1 with the reason on stderr. */
static int fx_open(struct fx *f, const char *text)
{
    struct err e;

    f->conf = conf_parse_string(text, "test.conf", NULL, &e);
    if (f->conf == NULL) {
        fprintf(stderr, "conf: %s\n", e.text);
        return -1;
    }
    f->base = event_base_new();
    event_base_priority_init(f->base, LOOP_NPRIO);
    fx_start(f);
    return 0;
}

/* fx_job: the job with this id, which the test expects to exist. */
static inline struct job *fx_job(struct fx *f, uint64_t id)
{
    struct job *j = jobs_find(f->c->jobs, id);

    assert_non_null(j);
    return j;
}

/* fx_setup_conf: a cmocka setup: a new fixture in a fresh directory, opened
 * on conf_fmt with its one "%s" (StateSaveLocation) replaced by that
 * directory. */
static __attribute__((unused)) int fx_setup_conf(void **state,
                                                 const char *conf_fmt)
{
    struct fx *f = calloc(1, sizeof(*f));
    const char *at = strstr(conf_fmt, "%s");
    char text[4096];

    if (f == NULL || at == NULL || fx_make_dir(f) < 0)
        return -1;
    snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - conf_fmt), conf_fmt,
             f->dir, at + 2);
    if (fx_open(f, text) < 0)
        return -1;
    *state = f;
    return 0;
}

/* fx_close: stop everything fx_open made, remove f->dir, free f. */
static int fx_close(struct fx *f)
{
    char cmd[128];

    ctld_destroy(f->c);
    conf_destroy(f->conf);
    event_base_free(f->base);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    free(f);
    return system(cmd) == 0 ? 0 : -1;
}

/* fx_submit: submit spec (JSON text) as who, then run the loop
 * iteration's flush (the pass and the commit): the job id, or 0 with e
 * set. */
static inline uint64_t fx_submit(struct fx *f, const char *spec,
                                 const struct auth_id *who, struct err *e)
{
    json_t *o = json_loads(spec, 0, NULL), *reply = NULL;
    uint64_t id = 0;

    assert_non_null(o);
    err_clear(e);
    if (jobs_submit(f->c->jobs, o, who, &reply, e) == 0) {
        id = (uint64_t)json_integer_value(json_object_get(reply, "job_id"));
        json_decref(reply);
    }
    json_decref(o);
    loop_flush(f->c->loop);
    return id;
}

/* A table of SUBMIT bodies: each accepted (error NULL), or refused with
 * an error holding error. */
struct fx_submit_case {
    const char *spec, *error;
};

static inline void fx_submit_cases(struct fx *f,
                                   const struct fx_submit_case *cases, size_t n,
                                   const struct auth_id *who)
{
    struct err e;

    for (size_t i = 0; i < n; i++) {
        uint64_t id = fx_submit(f, cases[i].spec, who, &e);
        if (cases[i].error == NULL) {
            if (id == 0)
                fail_msg("case %zu refused: %s", i, e.text);
            continue;
        }
        if (id != 0)
            fail_msg("case %zu accepted: %s", i, cases[i].spec);
        if (strstr(e.text, cases[i].error) == NULL)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, e.text,
                     cases[i].error);
    }
}

/* The unfinished jobs' list (jobs_first_active) holds exactly the jobs
 * of the table that are not final, in the same order; n of them; and
 * jobs_active_tasks counts them as MaxJobCount does. */
static __attribute__((unused)) void assert_active_list(struct jobs *js,
                                                       size_t n)
{
    struct job *a = jobs_first_active(js), *prev = NULL;
    size_t k = 0, tasks = 0;

    for (struct job *j = jobs_first(js); j != NULL; j = j->next) {
        if (job_state_final(j->state))
            continue;
        /* MaxJobCount's count, which adds up the arrays apart */
        tasks += j->array_pending ? j->array_pending->count : 1;
        assert_ptr_equal(a, j);
        assert_ptr_equal(a->aprev, prev);
        prev = a;
        a = a->anext;
        k++;
    }
    assert_null(a);
    assert_int_equal(k, n);
    assert_int_equal(jobs_active(js), n);
    assert_int_equal(jobs_active_tasks(js), tasks);
}

#endif
