/*
 * The controller's job logic without sockets: a struct ctld built on a
 * temporary state directory, driven through jobs_submit and the state
 * machine.  Spec validation, holds, permissions, updates, every final
 * state, and a restart that brings back exactly what was committed.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"
#include "ctld_inproc.h"
#include "ctld/queue/jobfence.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodes.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "EnforcePartLimits=%s\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "NodeName=small CPUs=2 RealMemory=1000\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=72:00:00 "
    "DefaultTime=1:00:00\n"
    "PartitionName=dev Nodes=small MaxTime=24:00:00\n";

static const struct auth_id alice = {1001, 1001};
static const struct auth_id bob = {1002, 1002};
static const struct auth_id root = {0, 0};

static int fx_setup(void **state, const char *enforce)
{
    struct fx *f = calloc(1, sizeof(*f));
    char text[2048];

    if (fx_make_dir(f) < 0)
        return -1;
    snprintf(text, sizeof(text), conf_fmt, f->dir, enforce);
    if (fx_open(f, text) < 0)
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return fx_setup(state, "ALL");
}

static int setup_no_enforce(void **state)
{
    return fx_setup(state, "NO");
}

static int teardown(void **state)
{
    return fx_close(*state);
}

static void test_spec_validation(void **state)
{
    static const struct fx_submit_case cases[] = {
        /* error NULL: accepted */
        {"{\"script\": \"#!/bin/sh\\ntrue\"}", NULL},
        {"{\"script\": \"echo hi\"}", "script has no interpreter line (#!...)"},
        {"{\"name\": \"x\"}", "job script: missing"},
        {"{\"script\": \"#!/bin/sh\", \"partition\": \"gpu\"}",
         "invalid partition name \"gpu\" (partitions: batch,dev)"},
        {"{\"script\": \"#!/bin/sh\", \"partition\": \"dev\", "
         "\"cpus_per_task\": 64}",
         "requested 64 CPUs per node but the largest node in partition dev "
         "has 2"},
        {"{\"script\": \"#!/bin/sh\", \"mem_mib\": 128000}",
         "requested 128000 MiB of memory per node but the largest node in "
         "partition batch has 64000 MiB"},
        {"{\"script\": \"#!/bin/sh\", \"nodes\": 3}",
         "requested 3 nodes but partition batch has 2"},
        {"{\"script\": \"#!/bin/sh\", \"gres\": \"gpu:8\"}",
         "requested 8 GPUs per node but the largest node in partition batch "
         "has 4"},
        {"{\"script\": \"#!/bin/sh\", \"time_limit_s\": 300000}",
         "time limit 3-11:20:00 exceeds the MaxTime 3-00:00:00 of partition "
         "batch"},
        {"{\"script\": \"#!/bin/sh\", \"time_limit_s\": -1}",
         "time limit INFINITE exceeds the MaxTime 3-00:00:00"},
        {"{\"script\": \"#!/bin/sh\", \"time_limit_s\": 0}",
         "job time_limit_s: expected seconds"},
        {"{\"script\": \"#!/bin/sh\", \"cpus_per_task\": \"4\"}",
         "job cpus_per_task: expected an integer"},
        {"{\"script\": \"#!/bin/sh\", \"mem_mib\": 10, \"mem_per_cpu_mib\": 1}",
         "mutually exclusive"},
        {"{\"script\": \"#!/bin/sh\", \"work_dir\": \"rel\"}",
         "is not an absolute path"},
        {"{\"script\": \"#!/bin/sh\", \"nodelist\": \"node07\"}",
         "invalid node name \"node07\" in job nodelist"},
        {"{\"script\": \"#!/bin/sh\", \"environment\": {\"A\": 1}}",
         "job environment \"A\""},
        {"{\"script\": \"#!/bin/sh\", \"argv\": [\"a\", 2]}",
         "job argv[1]: expected a string"},
        {"{\"script\": \"#!/bin/sh\", \"nodelist\": \"node01\", \"nodes\": 2}",
         "requested 2 nodes but partition batch has 1 that the node list "
         "allows"},
    };
    struct fx *f = *state;

    fx_submit_cases(f, cases, sizeof(cases) / sizeof(cases[0]), &alice);
    assert_int_equal(jobs_count(f->c->jobs), 1);
}

static void test_submit_defaults(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id, id2;
    struct job *j;
    json_t *o, *reply = NULL;

    id = fx_submit(f,
                   "{\"script\": \"#!/bin/sh\", \"argv\": [\"/x/train.sh\"], "
                   "\"ntasks\": 3, \"cpus_per_task\": 2, \"nodes\": 2}",
                   &alice, &e);
    assert_int_equal(id, 1);
    j = fx_job(f, id);
    assert_int_equal(j->state, JOB_PENDING);
    assert_string_equal(j->name, "train.sh");
    assert_int_equal(j->user_id, 1001);
    assert_int_equal(j->time_limit_s, 3600); /* batch DefaultTime */
    assert_int_equal(j->cpus_per_node, 3);
    assert_int_equal(j->part, 0);
    id2 =
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"hold\": true}", &alice, &e);
    assert_int_equal(id2, 2);
    assert_string_equal(job_reason(fx_job(f, id2)), "JobHeldUser");

    /* test_only answers without creating a job (as rpc_submit does);
     * jobs_submit refuses it */
    o = json_pack("{s:s, s:b}", "script", "#!/bin/sh", "test_only", 1);
    assert_int_equal(jobs_submit(f->c->jobs, o, &alice, &reply, &e), -1);
    j = jobs_submit_test(f->c->jobs, o, &alice, &e);
    assert_non_null(j);
    reply = sched_drv_test(f->c->sched, j);
    job_free(j);
    assert_int_equal(json_integer_value(json_object_get(reply, "job_id")), 0);
    assert_true(json_is_false(json_object_get(reply, "would_start")));
    json_decref(reply);
    json_decref(o);
    assert_int_equal(jobs_count(f->c->jobs), 2);
}

static void test_over_maxtime_held(void **state)
{
    struct fx *f = *state;
    struct err e;
    json_t *set;
    uint64_t id = fx_submit(
        f, "{\"script\": \"#!/bin/sh\", \"time_limit_s\": 300000}", &alice, &e);

    assert_int_not_equal(id, 0);
    assert_string_equal(job_reason(fx_job(f, id)), "PartitionTimeLimit");
    /* lowering it below MaxTime lets it run */
    set = json_pack("{s:i}", "time_limit_s", 3600);
    assert_int_equal(jobs_update(f->c->jobs, fx_job(f, id), alice.uid, set, &e),
                     0);
    json_decref(set);
    assert_false(fx_job(f, id)->part_time_limit);
}

static void test_hold_release_permissions(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    struct job *j = fx_job(f, id);

    assert_int_equal(jobs_hold(f->c->jobs, j, bob.uid, &e), -1);
    assert_string_equal(e.text, "Access/permission denied");
    assert_false(j->held_user);
    assert_int_equal(jobs_hold(f->c->jobs, j, alice.uid, &e), 0);
    assert_string_equal(job_reason(j), "JobHeldUser");
    assert_int_equal(jobs_release(f->c->jobs, j, alice.uid, &e), 0);
    assert_int_equal(jobs_hold(f->c->jobs, j, root.uid, &e), 0);
    assert_string_equal(job_reason(j), "JobHeldAdmin");
    assert_int_equal(jobs_release(f->c->jobs, j, alice.uid, &e), -1);
    assert_string_equal(e.text, "Access/permission denied");
    assert_true(j->held_admin);
    assert_int_equal(jobs_release(f->c->jobs, j, root.uid, &e), 0);
    assert_false(j->held_admin);
    assert_int_equal(jobs_cancel(f->c->jobs, j, bob.uid, 0, &e), -1);
    assert_string_equal(e.text, "Access/permission denied");
    assert_int_equal(j->state, JOB_PENDING);
    assert_int_equal(jobs_cancel(f->c->jobs, j, alice.uid, 0, &e), 0);
    assert_int_equal(j->state, JOB_CANCELLED);
    assert_int_equal(jobs_hold(f->c->jobs, j, alice.uid, &e), -1);
}

/* scontrol hold of a running job is accepted, as Slurm does: it keeps
 * running, and waits held should it be requeued. */
static void test_hold_running(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    struct job *j = fx_job(f, id);
    const size_t node = 0;
    struct job_end r = {0, SIGKILL, time(NULL), false};

    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    assert_int_equal(jobs_hold(f->c->jobs, j, alice.uid, &e), 0);
    assert_int_equal(j->state, JOB_RUNNING);
    assert_true(j->held_user);
    assert_int_equal(jobs_release(f->c->jobs, j, alice.uid, &e), 0);
    assert_false(j->held_user);
    assert_int_equal(jobs_hold(f->c->jobs, j, alice.uid, &e), 0);
    assert_int_equal(jobs_requeue(f->c->jobs, j, alice.uid, false, &e), 0);
    assert_int_equal(jobs_ended(f->c->jobs, j, &r, &e), 0);
    assert_int_equal(j->state, JOB_PENDING);
    assert_int_equal(j->restart_count, 1);
    assert_string_equal(job_reason(j), "JobHeldUser");
    assert_int_equal(j->eligible_time, 0);
    assert_int_equal(jobs_release(f->c->jobs, j, alice.uid, &e), 0);
    assert_int_not_equal(j->eligible_time, 0);
}

static void test_update_time_limit(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    struct job *j = fx_job(f, id);
    json_t *up = json_pack("{s:i}", "time_limit_s", 7200);
    json_t *down = json_pack("{s:i}", "time_limit_s", 60);
    json_t *part = json_pack("{s:s}", "partition", "dev");
    json_t *prio = json_pack("{s:i}", "priority", 9);

    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, up, &e), -1);
    assert_int_equal(errno, EPERM);
    assert_int_equal(j->time_limit_s, 3600);
    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, down, &e), 0);
    assert_int_equal(j->time_limit_s, 60);
    assert_int_equal(jobs_update(f->c->jobs, j, root.uid, up, &e), 0);
    assert_int_equal(j->time_limit_s, 7200);
    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, part, &e), 0);
    assert_string_equal(f->conf->parts[j->part].name, "dev");
    assert_int_equal(jobs_update(f->c->jobs, j, alice.uid, prio, &e), -1);
    assert_int_equal(jobs_update(f->c->jobs, j, bob.uid, down, &e), -1);
    assert_string_equal(e.text, "Access/permission denied");
    json_decref(up);
    json_decref(down);
    json_decref(part);
    json_decref(prio);
}

/* Run job id on node 0 and end it; returns its final state. */
static enum job_state run_and_end(struct fx *f, uint64_t id, int cancel_uid,
                                  int code, int sig, bool oom)
{
    struct job *j = fx_job(f, id);
    const size_t node = 0;
    struct err e;
    struct job_end r = {code, sig, time(NULL), oom};

    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    assert_int_equal(j->state, JOB_RUNNING);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc, 1);
    if (cancel_uid >= 0) {
        assert_int_equal(jobs_cancel(f->c->jobs, j, (uid_t)cancel_uid, 0, &e),
                         0);
        assert_int_equal(j->state, JOB_RUNNING); /* until the node says */
    }
    assert_int_equal(jobs_ended(f->c->jobs, j, &r, &e), 0);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc, 0);
    return j->state;
}

static void test_final_states(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t ids[6];
    struct job *j;
    const size_t node = 1;
    struct job_end timeout = {0, 15, 1006, false};
    struct job_end twice = {0, 0, 0, false};

    for (int i = 0; i < 6; i++)
        ids[i] = fx_submit(f,
                           "{\"script\": \"#!/bin/sh\", \"time_limit_s\": 5, "
                           "\"requeue\": false}",
                           &alice, &e);
    assert_int_equal(run_and_end(f, ids[0], -1, 0, 0, false), JOB_COMPLETED);
    assert_int_equal(run_and_end(f, ids[1], -1, 3, 0, false), JOB_FAILED);
    assert_string_equal(job_reason(fx_job(f, ids[1])), "NonZeroExitCode");
    assert_int_equal(run_and_end(f, ids[2], (int)alice.uid, 0, 15, false),
                     JOB_CANCELLED);
    /* the node's cgroup saw an OOM kill */
    assert_int_equal(run_and_end(f, ids[5], -1, 0, 9, true), JOB_OUT_OF_MEMORY);
    assert_string_equal(job_reason(fx_job(f, ids[5])), "OutOfMemory");
    /* time limit: the tick asks for a kill, the end makes it TIMEOUT */
    j = fx_job(f, ids[3]);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, 1000, &e), 0);
    jobs_tick(f->c->jobs, 1004);
    assert_int_equal(j->kill, JOB_KILL_NONE);
    jobs_tick(f->c->jobs, 1005);
    assert_int_equal(j->kill, JOB_KILL_TIMEOUT);
    assert_int_equal(jobs_ended(f->c->jobs, j, &timeout, &e), 0);
    assert_int_equal(j->state, JOB_TIMEOUT);
    /* a node that goes away takes its jobs with it */
    j = fx_job(f, ids[4]);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    jobs_node_down(f->c->jobs, 1, "NodeDown", time(NULL));
    assert_int_equal(j->state, JOB_NODE_FAIL);
    assert_int_equal(nodes_get(f->c->nodes, 1)->cpus_alloc, 0);
    /* an end reported twice changes nothing */
    assert_int_equal(jobs_ended(f->c->jobs, j, &twice, &e), 0);
    assert_int_equal(j->state, JOB_NODE_FAIL);
    /* each final state took its job off the unfinished list */
    assert_active_list(f->c->jobs, 0);
}

static void test_restart_restores(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t pend = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"name\": \"p\"}",
                              &alice, &e);
    uint64_t run = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &bob, &e);
    uint64_t held = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &bob, &e);
    const size_t node = 1;

    uint64_t done = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &bob, &e);

    assert_int_equal(
        jobs_start(f->c->jobs, fx_job(f, run), &node, 1, time(NULL), &e), 0);
    assert_int_equal(jobs_hold(f->c->jobs, fx_job(f, held), root.uid, &e), 0);
    assert_int_equal(run_and_end(f, done, -1, 0, 0, false), JOB_COMPLETED);
    assert_active_list(f->c->jobs, 3);
    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    assert_int_equal(jobs_count(f->c->jobs), 4);
    assert_int_equal(fx_job(f, pend)->state, JOB_PENDING);
    assert_string_equal(fx_job(f, pend)->name, "p");
    assert_int_equal(fx_job(f, run)->state, JOB_RUNNING);
    assert_int_equal(fx_job(f, run)->alloc[0], 1);
    assert_int_equal(nodes_get(f->c->nodes, 1)->cpus_alloc, 1);
    assert_true(fx_job(f, held)->held_admin);
    assert_active_list(f->c->jobs, 3);
    /* ids go on where they stopped */
    assert_int_equal(fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e),
                     5);
}

/* ---- the table's subscribers (jobs_subscribe) ------------------------ */

/* What one subscriber heard, in order: each job_event's what ("-" for
 * NULL) and "ended" for each job_ended, with the job, time and state. */
struct heard {
    char log[64][40];
    uint64_t id[64];
    time_t when[64];
    enum job_state state[64];
    size_t n;
};

static void heard_add(struct heard *h, const struct job *j, const char *text,
                      time_t when)
{
    assert_true(h->n < 64);
    snprintf(h->log[h->n], sizeof(h->log[0]), "%s", text);
    h->id[h->n] = j->id;
    h->when[h->n] = when;
    h->state[h->n] = j->state;
    h->n++;
}

static void heard_event(void *arg, struct job *j, const char *what, time_t when)
{
    heard_add(arg, j, what ? what : "-", when);
}

static void heard_ended(void *arg, struct job *j, time_t when)
{
    heard_add(arg, j, "ended", when);
}

static const struct jobs_events heard_events = {heard_event, heard_ended};

/* How many times job id was heard with text. */
static size_t heard_count(const struct heard *h, uint64_t id, const char *text)
{
    size_t k = 0;

    for (size_t i = 0; i < h->n; i++)
        k += h->id[i] == id && strcmp(h->log[i], text) == 0;
    return k;
}

/* What job id was heard, in order, joined with spaces. */
static const char *heard_of(const struct heard *h, uint64_t id)
{
    static char buf[512];
    size_t off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < h->n; i++)
        if (h->id[i] == id)
            off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
                                    off ? " " : "", h->log[i]);
    return buf;
}

static void test_subscriber_hears_each_transition(void **state)
{
    static struct heard h; /* subscribed until the fixture closes */
    struct fx *f = *state;
    struct err e;
    const size_t node = 0;
    struct job_end done = {0, 0, 1010, false};
    uint64_t a, b, c;
    struct job *j;

    memset(&h, 0, sizeof(h));
    jobs_subscribe(f->c->jobs, &heard_events, &h);
    /* submit, start, end: each once, with the job as it now stands */
    a = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    assert_int_not_equal(a, 0);
    assert_string_equal(heard_of(&h, a), "submit");
    assert_int_equal(h.state[0], JOB_PENDING);
    j = fx_job(f, a);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, 1000, &e), 0);
    jobs_launched(f->c->jobs, j);
    assert_int_equal(jobs_ended(f->c->jobs, j, &done, &e), 0);
    assert_string_equal(heard_of(&h, a), "submit start - ended end");
    for (size_t i = 0; i < h.n; i++) {
        if (strcmp(h.log[i], "start") == 0) {
            assert_int_equal(h.when[i], 1000); /* the transition's time */
            assert_int_equal(h.state[i], JOB_RUNNING);
        }
        if (strcmp(h.log[i], "ended") == 0 || strcmp(h.log[i], "end") == 0) {
            assert_int_equal(h.when[i], 1010);
            assert_int_equal(h.state[i], JOB_COMPLETED);
        }
    }
    /* a pending job cancelled: it never held a node, so it does not end
     * there */
    b = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    assert_int_equal(jobs_hold(f->c->jobs, fx_job(f, b), alice.uid, &e), 0);
    assert_int_equal(jobs_release(f->c->jobs, fx_job(f, b), alice.uid, &e), 0);
    assert_int_equal(jobs_cancel(f->c->jobs, fx_job(f, b), alice.uid, 0, &e),
                     0);
    assert_int_equal(fx_job(f, b)->state, JOB_CANCELLED);
    assert_int_equal(heard_count(&h, b, "submit"), 1);
    assert_int_equal(heard_count(&h, b, "hold"), 1);
    assert_int_equal(heard_count(&h, b, "release"), 1);
    assert_int_equal(heard_count(&h, b, "cancel"), 1);
    assert_int_equal(heard_count(&h, b, "ended"), 0);
    /* preempted to be requeued: it waits again, and has not ended */
    c = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    j = fx_job(f, c);
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    assert_int_equal(jobs_preempt(f->c->jobs, j, a, true, 0, &e), 0);
    done.end = 0;
    assert_int_equal(jobs_ended(f->c->jobs, j, &done, &e), 0);
    assert_int_equal(j->state, JOB_PENDING);
    assert_string_equal(heard_of(&h, c), "submit start preempt requeue");
    assert_int_equal(h.state[h.n - 1], JOB_PENDING);
    /* the node going down requeues it again, behind a fence (saved
     * without an event) */
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    jobs_node_down(f->c->jobs, node, "NodeDown", time(NULL));
    assert_string_equal(heard_of(&h, c), "submit start preempt requeue start "
                                         "requeue -");
    assert_int_equal(j->state, JOB_PENDING);
    /* and, if it may not be requeued, ends it once */
    j->requeue = false;
    assert_int_equal(jobs_start(f->c->jobs, j, &node, 1, time(NULL), &e), 0);
    jobs_node_down(f->c->jobs, node, "NodeDown", time(NULL));
    assert_string_equal(heard_of(&h, c), "submit start preempt requeue start "
                                         "requeue - start ended node_fail");
}

/* A node set DOWN by an admin, and one silent for SlurmdTimeout, report
 * it through the root's callback: their jobs that may not be requeued
 * end NODE_FAIL, "NodeDown". */
static void test_node_down_fails_its_jobs(void **state)
{
    struct fx *f = *state;
    struct err e;
    const size_t n0 = 0, n1 = 1;
    time_t now = time(NULL);
    const char *once = "{\"script\": \"#!/bin/sh\", \"requeue\": false}";
    uint64_t a = fx_submit(f, once, &alice, &e);
    uint64_t b = fx_submit(f, once, &alice, &e);
    uint64_t c = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &bob, &e);

    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, a), &n0, 1, now, &e), 0);
    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, b), &n1, 1, now, &e), 0);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc, 1);
    assert_int_equal(nodes_set_admin(f->c->nodes, nodes_get(f->c->nodes, 0),
                                     NODE_ADMIN_DOWN, "maint", now, &e),
                     0);
    assert_int_equal(fx_job(f, a)->state, JOB_NODE_FAIL);
    assert_string_equal(job_reason(fx_job(f, a)), "NodeDown");
    assert_int_equal(fx_job(f, a)->end_time, now);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc, 0);
    assert_int_equal(fx_job(f, b)->state, JOB_RUNNING); /* another node */
    assert_int_equal(fx_job(f, c)->state, JOB_PENDING);
    /* draining takes no job down */
    assert_int_equal(nodes_set_admin(f->c->nodes, nodes_get(f->c->nodes, 1),
                                     NODE_ADMIN_DRAIN, "soon", now, &e),
                     0);
    assert_int_equal(fx_job(f, b)->state, JOB_RUNNING);
    /* silent past SlurmdTimeout (300 s) */
    nodes_tick(f->c->nodes, now + 299);
    assert_int_equal(fx_job(f, b)->state, JOB_RUNNING);
    nodes_tick(f->c->nodes, now + 301);
    assert_true(nodes_get(f->c->nodes, 1)->not_responding);
    assert_int_equal(fx_job(f, b)->state, JOB_NODE_FAIL);
    assert_string_equal(job_reason(fx_job(f, b)), "NodeDown");
    assert_int_equal(fx_job(f, b)->end_time, now + 301);
    assert_int_equal(nodes_get(f->c->nodes, 1)->cpus_alloc, 0);
    assert_int_equal(fx_job(f, c)->state, JOB_PENDING);
}

/* A run lost with its node (silent past SlurmdTimeout): a job that may be
 * requeued waits again behind a fence on its batch host, which holds
 * across a restart until lifted; a job on two nodes that loses the one
 * that is not its batch host waits for that host, which was told to kill
 * it; one that may not be requeued ends NODE_FAIL; a fenced job
 * cancelled ends without its fence.  What a lost run held on its batch
 * host stays held there while fenced, across a restart too. */
static void test_node_lost_requeue_fence(void **state)
{
    struct fx *f = *state;
    struct err e;
    const size_t n0 = 0, both[2] = {1, 0};
    time_t now = time(NULL);
    uint64_t a = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &alice, &e);
    uint64_t b = fx_submit(f, "{\"script\": \"#!/bin/sh\", \"requeue\": false}",
                           &alice, &e);
    uint64_t c =
        fx_submit(f, "{\"script\": \"#!/bin/sh\", \"nodes\": 2}", &bob, &e);
    uint64_t d = fx_submit(f, "{\"script\": \"#!/bin/sh\"}", &bob, &e);
    struct job *j;

    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, a), &n0, 1, now, &e), 0);
    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, b), &n0, 1, now, &e), 0);
    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, c), both, 2, now, &e), 0);
    assert_int_equal(jobs_start(f->c->jobs, fx_job(f, d), &n0, 1, now, &e), 0);
    jobs_launched(f->c->jobs, fx_job(f, a));
    nodes_tick(f->c->nodes, now + 301); /* both silent past SlurmdTimeout */
    j = fx_job(f, a);
    assert_int_equal(j->state, JOB_PENDING);
    assert_int_equal(j->restart_count, 1);
    assert_true(j->fenced);
    assert_int_equal(j->fence_node, 0);
    assert_string_equal(job_reason(j), "NodeDown");
    assert_non_null(strstr(j->reason_detail, "waits for node01 to confirm"));
    assert_int_equal(fx_job(f, b)->state, JOB_NODE_FAIL);
    assert_false(fx_job(f, b)->fenced);
    /* c lost node01 (and node02, its batch host, went silent too) */
    assert_int_equal(fx_job(f, c)->state, JOB_PENDING);
    assert_int_equal(fx_job(f, c)->fence_node, 1);
    /* what the lost runs held on their batch hosts stays held there: a
     * and d on node01, c on node02; b, ended, holds nothing */
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc,
                     fx_job(f, a)->fence_cpus + fx_job(f, d)->fence_cpus);
    assert_int_equal(fx_job(f, a)->fence_cpus, 1);
    assert_int_equal(nodes_get(f->c->nodes, 1)->cpus_alloc,
                     fx_job(f, c)->fence_cpus);
    assert_true(fx_job(f, c)->fence_cpus > 0);
    /* the fence, its reason and its hold are kept across a restart */
    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    j = fx_job(f, a);
    assert_true(j->fenced);
    assert_int_equal(j->fence_node, 0);
    assert_string_equal(job_reason(j), "NodeDown");
    assert_non_null(j->reason_detail);
    assert_int_equal(j->fence_cpus, 1);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc,
                     1 + fx_job(f, d)->fence_cpus);
    jobfence_lift(f->c->jobs, j, "test");
    assert_false(j->fenced);
    assert_string_equal(job_reason(j), "None");
    assert_int_equal(j->fence_cpus, 0);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc,
                     fx_job(f, d)->fence_cpus);
    /* lifting every fence on node02 frees c and what it held */
    jobfence_lift_node(f->c->jobs, 1, "test");
    assert_false(fx_job(f, c)->fenced);
    assert_int_equal(nodes_get(f->c->nodes, 1)->cpus_alloc, 0);
    /* cancelled behind its fence: final, fence and hold gone */
    assert_true(fx_job(f, d)->fenced);
    assert_int_equal(jobs_cancel(f->c->jobs, fx_job(f, d), bob.uid, 0, &e), 0);
    assert_int_equal(fx_job(f, d)->state, JOB_CANCELLED);
    assert_false(fx_job(f, d)->fenced);
    assert_int_equal(nodes_get(f->c->nodes, 0)->cpus_alloc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_spec_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_submit_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_over_maxtime_held,
                                        setup_no_enforce, teardown),
        cmocka_unit_test_setup_teardown(test_hold_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hold_release_permissions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_update_time_limit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_final_states, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscriber_hears_each_transition,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_down_fails_its_jobs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_node_lost_requeue_fence, setup,
                                        teardown),
    };
    log_init("test", LOG_LEVEL_WARN, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
