/*
 * The controller's GPU logic without sockets: requests normalised into
 * GPUs per node (and the CPUs and memory they imply), refusals with their
 * numbers, node inventories checked against Gres=, TRES strings, and a
 * restart that brings back the GPU indices a running job holds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "ctld/ctld.h"
#include "ctld_inproc.h"
#include "ctld/queue/jobs.h"
#include "ctld/cluster/nodegpu.h"
#include "ctld/cluster/nodes.h"
#include "ctld/cluster/tres.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "AuthType=auth/key\n"
    "StateSaveLocation=%s\n"
    "GresTypes=gpu\n"
    "NodeName=node[01-02] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "NodeName=node03 CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
    "NodeName=node04 CPUs=16 RealMemory=64000 Gres=gpu:h200:8\n"
    "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=1:00:00\n"
    "PartitionName=typed Nodes=node[03-04] MaxTime=1:00:00\n";

static const struct auth_id alice = {1001, 1001};

static int setup(void **state)
{
    return fx_setup_conf(state, conf_fmt);
}

static int teardown(void **state)
{
    return fx_close(*state);
}

/* Submit "{"script": .., EXTRA}": the job id, or 0 with e set. */
static uint64_t submit(struct fx *f, const char *extra, struct err *e)
{
    char text[1024];

    snprintf(text, sizeof(text), "{\"script\": \"#!/bin/sh\"%s%s}",
             extra[0] ? ", " : "", extra);
    return fx_submit(f, text, &alice, e);
}

static void test_requests(void **state)
{
    static const struct {
        const char *spec;
        uint32_t gpn;      /* GPUs per node */
        const char *type;  /* NULL: any */
        uint32_t cpus;     /* CPUs per node */
        uint64_t mem;      /* MiB per node */
        const char *error; /* a part of the refusal, or NULL */
    } cases[] = {
        {"\"gres\": \"gpu:2\"", 2, NULL, 1, 0, NULL},
        {"\"gres\": \"gpu\"", 1, NULL, 1, 0, NULL},
        {"\"gres\": \"gpu:0\"", 0, NULL, 1, 0, NULL},
        {"\"gres\": \"gpu:a100:3\", \"partition\": \"typed\"", 3, "a100", 1, 0,
         NULL},
        {"\"gpus\": \"4\", \"nodes\": 2", 2, NULL, 1, 0, NULL},
        {"\"gpus\": \"3\", \"nodes\": 2", 2, NULL, 1, 0, NULL},
        {"\"gpus\": \"h200:8\", \"partition\": \"typed\"", 8, "h200", 1, 0,
         NULL},
        {"\"gpus_per_node\": \"3\"", 3, NULL, 1, 0, NULL},
        {"\"gpus_per_task\": \"1\", \"ntasks\": 4", 4, NULL, 4, 0, NULL},
        {"\"gpus_per_task\": \"1\", \"ntasks\": 4, \"nodes\": 2", 2, NULL, 2, 0,
         NULL},
        {"\"gpus_per_node\": \"2\", \"cpus_per_gpu\": 4", 2, NULL, 8, 0, NULL},
        {"\"gpus_per_node\": \"2\", \"mem_per_gpu_mib\": 10000", 2, NULL, 1,
         20000, NULL},
        {"\"gpus_per_node\": \"2\", \"cpus_per_gpu\": 4, \"ntasks\": 12", 2,
         NULL, 12, 0, NULL},
        /* refusals, with their numbers */
        {"\"gres\": \"gpu:5\"", 0, NULL, 0, 0,
         "requested 5 GPUs per node but the largest node in partition batch "
         "has 4"},
        {"\"gpus\": \"8\"", 0, NULL, 0, 0,
         "requested 8 GPUs per node but the largest node in partition batch "
         "has 4 (gpus=8 over 1 node: ask for more nodes with -N)"},
        {"\"gpus_per_node\": \"a100:1\"", 0, NULL, 0, 0,
         "requested 1 GPUs of type a100 per node but no node in partition "
         "batch has GPUs of that type"},
        {"\"gpus_per_node\": \"a100:5\", \"partition\": \"typed\"", 0, NULL, 0,
         0,
         "requested 5 GPUs of type a100 per node but the largest node in "
         "partition typed has 4"},
        {"\"gpus_per_task\": \"2\", \"ntasks\": 3", 0, NULL, 0, 0,
         "requested 6 GPUs per node"},
        {"\"gres\": \"gpu:1\", \"gpus_per_node\": \"1\"", 0, NULL, 0, 0,
         "job asks for GPUs in more than one way (gres and gpus_per_node)"},
        {"\"gres\": \"mps:100\"", 0, NULL, 0, 0,
         "only gpu can be requested (mps is not scheduled)"},
        {"\"gres\": \"gpu:a100:1,gpu:h200:1\"", 0, NULL, 0, 0,
         "one GPU request per job"},
        {"\"gpus_per_node\": \"many\"", 0, NULL, 0, 0,
         "job gpus_per_node \"many\": expected N or TYPE:N"},
        {"\"gpus_per_task\": 2", 0, NULL, 0, 0, "job gpus_per_task: expected"},
        {"\"cpus_per_gpu\": 2", 0, NULL, 0, 0, "job cpus_per_gpu needs GPUs"},
        {"\"gres\": \"gpu:1\", \"cpus_per_gpu\": 2, \"cpus_per_task\": 2", 0,
         NULL, 0, 0, "cpus_per_gpu and cpus_per_task are mutually exclusive"},
        {"\"gres\": \"gpu:1\", \"mem_per_gpu_mib\": 2, \"mem_mib\": 2", 0, NULL,
         0, 0, "mem_mib, mem_per_cpu_mib and mem_per_gpu_mib are mutually"},
        {"\"gres\": \"gpu:1\", \"cpus_per_gpu\": 0", 0, NULL, 0, 0,
         "job cpus_per_gpu: expected an integer 1-65535"},
        {"\"gres\": \"gpu:1\", \"cpus_per_gpu\": 32", 0, NULL, 0, 0,
         "requested 32 CPUs per node but the largest node in partition batch "
         "has 16"},
        {"\"gres\": \"gpu:5000\"", 0, NULL, 0, 0,
         "requested 5000 GPUs per node but a node has at most 4096"},
    };
    struct fx *f = *state;
    struct err e;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t id = submit(f, cases[i].spec, &e);
        struct job *j;
        if (cases[i].error != NULL) {
            if (id != 0)
                fail_msg("case %zu accepted: %s", i, cases[i].spec);
            if (strstr(e.text, cases[i].error) == NULL)
                fail_msg("case %zu: got \"%s\", want \"%s\"", i, e.text,
                         cases[i].error);
            continue;
        }
        if (id == 0)
            fail_msg("case %zu refused: %s", i, e.text);
        j = jobs_find(f->c->jobs, id);
        if (j->gpus_per_node != cases[i].gpn ||
            j->cpus_per_node != cases[i].cpus ||
            job_mem_per_node(j) != cases[i].mem)
            fail_msg("case %zu: gpus %u cpus %u mem %llu, want %u %u %llu", i,
                     j->gpus_per_node, j->cpus_per_node,
                     (unsigned long long)job_mem_per_node(j), cases[i].gpn,
                     cases[i].cpus, (unsigned long long)cases[i].mem);
        if ((cases[i].type == NULL) != (j->gpu_type == NULL) ||
            (cases[i].type && strcmp(cases[i].type, j->gpu_type) != 0))
            fail_msg("case %zu: type %s, want %s", i,
                     j->gpu_type ? j->gpu_type : "(any)",
                     cases[i].type ? cases[i].type : "(any)");
    }
}

static json_t *job_json(struct fx *f, uint64_t id)
{
    return job_to_json(jobs_find(f->c->jobs, id), f->conf, false);
}

/* The JSON of a GPU job, pending and then running, and its restart. */
static void test_json_and_restart(void **state)
{
    struct fx *f = *state;
    struct err e;
    uint64_t id = submit(
        f, "\"gpus_per_node\": \"2\", \"cpus_per_gpu\": 2, \"mem_mib\": 4096",
        &e);
    const uint32_t gpus[] = {1, 3};
    const size_t node = 1;
    json_t *o;

    assert_true(id != 0);
    o = job_json(f, id);
    assert_string_equal(json_string_value(json_object_get(o, "tres_per_node")),
                        "gres:gpu:2");
    assert_string_equal(json_string_value(json_object_get(o, "tres_req_str")),
                        "cpu=4,mem=4G,node=1,billing=4,gres/gpu=2");
    assert_true(json_is_null(json_object_get(o, "tres_alloc_str")));
    assert_true(json_is_null(json_object_get(o, "gpu_alloc")));
    json_decref(o);

    assert_int_equal(jobs_start_gpus(f->c->jobs, jobs_find(f->c->jobs, id),
                                     &node, 1, gpus, time(NULL), &e),
                     0);
    assert_true(nodes_gpu_used(nodes_get(f->c->nodes, 1), 3));
    o = job_json(f, id);
    assert_string_equal(json_string_value(json_object_get(o, "tres_alloc_str")),
                        "cpu=4,mem=4G,node=1,billing=4,gres/gpu=2");
    assert_int_equal(
        json_integer_value(json_array_get(
            json_object_get(json_object_get(o, "gpu_alloc"), "node02"), 1)),
        3);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(o, "gres_detail"), 0)),
        "gpu:2(IDX:1,3)");
    json_decref(o);

    loop_flush(f->c->loop);
    ctld_destroy(f->c);
    fx_start(f);
    struct job *j = jobs_find(f->c->jobs, id);
    assert_non_null(j);
    assert_int_equal(j->gpus_per_node, 2);
    assert_int_equal(j->cpus_per_gpu, 2);
    assert_non_null(j->gpu_alloc);
    assert_int_equal(j->gpu_alloc[0], 1);
    assert_int_equal(j->gpu_alloc[1], 3);
    /* charged again: a new job cannot get them */
    assert_true(nodes_gpu_used(nodes_get(f->c->nodes, 1), 1));
    assert_true(nodes_gpu_used(nodes_get(f->c->nodes, 1), 3));
    assert_false(nodes_gpu_used(nodes_get(f->c->nodes, 1), 0));
    assert_int_equal(nodes_gpus_alloc(nodes_get(f->c->nodes, 1)), 2);
    /* its end frees them */
    struct job_end done = {0, 0, time(NULL), false};
    assert_int_equal(jobs_ended(f->c->jobs, j, &done, &e), 0);
    assert_int_equal(nodes_gpus_alloc(nodes_get(f->c->nodes, 1)), 0);
}

static struct gres_list gres(const char *s)
{
    struct gres_list l;

    if (gres_parse(s, &l, NULL) < 0)
        fail_msg("bad gres %s", s);
    return l;
}

/* What a node reports against its Gres=. */
static void test_inventory_check(void **state)
{
    static const struct {
        const char *cfg, *gpus, *gres, *note;
        const char *why; /* NULL: fine */
        size_t scheduled;
    } cases[] = {
        {"gpu:4", "[{\"index\":0},{\"index\":1},{\"index\":2},{\"index\":3}]",
         NULL, NULL, NULL, 4},
        {"gpu:4", NULL, "gpu:4", NULL, NULL, 4},
        {"gpu:4", "[]", "",
         "no gres.conf and NVML not found: install the "
         "NVIDIA driver or add gres.conf",
         "gres/gpu count reported 0 < configured 4 (no gres.conf and NVML not "
         "found: install the NVIDIA driver or add gres.conf)",
         0},
        {"gpu:4", "[]", "", NULL,
         "gres/gpu count reported 0 < configured 4 (the node found none: "
         "check its gres.conf, and the NVIDIA driver for AutoDetect=nvml)",
         0},
        {"gpu:4", "[{\"index\":0,\"type\":\"a100\"},{\"index\":1}]", NULL, NULL,
         "gres/gpu count reported 2 < configured 4 (the node found too "
         "few",
         0},
        {"gpu:a100:2",
         "[{\"index\":0,\"type\":\"h100\"},{\"index\":1,"
         "\"type\":\"h100\"}]",
         NULL, NULL,
         "gres/gpu:a100 count reported 0 < configured 2 (the node reports "
         "gpu:h100:2)",
         0},
        {"gpu:a100:2",
         "[{\"index\":0,\"type\":\"a100\"},{\"index\":1,"
         "\"type\":\"a100\"},{\"index\":2,\"type\":\"a100\"}]",
         NULL, NULL, NULL, 2},
        {"gpu:2",
         "[{\"index\":5,\"type\":\"h200\"},{\"index\":7,\"type\":"
         "\"h200\"}]",
         NULL, NULL, NULL, 2},
        {"", "[{\"index\":0}]", NULL, NULL, NULL, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gres_list cfg = gres(cases[i].cfg);
        json_t *g = cases[i].gpus ? json_loads(cases[i].gpus, 0, NULL) : NULL;
        struct nodegpu_inv inv, fit;
        char why[512];
        struct err e;
        int rc;

        assert_int_equal(nodegpu_parse(g, cases[i].gres, &inv, &e), 0);
        rc = nodegpu_check(&cfg, &inv, cases[i].note, why, sizeof(why));
        if (cases[i].why == NULL && rc != 0)
            fail_msg("case %zu: refused: %s", i, why);
        if (cases[i].why != NULL &&
            (rc == 0 || strncmp(why, cases[i].why, strlen(cases[i].why))))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i,
                     rc ? why : "(fine)", cases[i].why);
        if (rc == 0) {
            nodegpu_fit(&cfg, &inv, &fit);
            assert_int_equal(fit.n, cases[i].scheduled);
            nodegpu_fini(&fit);
        }
        nodegpu_fini(&inv);
        json_decref(g);
    }
}

static void test_inventory_parse(void **state)
{
    static const struct {
        const char *gpus;
        const char *error; /* NULL: read */
    } bad[] = {
        {"[{\"index\": -1}]", "gpus[0]: expected {\"index\": 0..4095"},
        {"[{\"index\": 4096}]", "gpus[0]: expected"},
        {"[{\"type\": \"a100\"}]", "gpus[0]: expected"},
        {"[{\"index\": 0}, {\"index\": 0}]", "gpus[1]: index 0 repeated"},
        {"[{\"index\": 0, \"type\": 7}]", "gpus[0].type: expected a string"},
        {"[{\"index\": 0, \"type\": \"a b\"}]",
         "gpus[0].type \"a b\": not a GRES type"},
        {"{\"index\": 0}", "gpus: expected an array"},
    };
    struct nodegpu_inv inv;
    struct err e;
    json_t *g;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        g = json_loads(bad[i].gpus, 0, NULL);
        assert_non_null(g);
        assert_int_equal(nodegpu_parse(g, NULL, &inv, &e), -1);
        if (strstr(e.text, bad[i].error) == NULL)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, e.text,
                     bad[i].error);
        json_decref(g);
    }
    /* links as gres.conf's Links=: an array (what sluiced sends) or a
     * string, one number per GPU of the list */
    g = json_loads(
        "[{\"index\": 0, \"links\": [-1, 4, 0]}, {\"index\": 1, "
        "\"links\": \"2,-1\"}, {\"index\": 2, \"links\": [0, 0, -1]}]",
        0, NULL);
    assert_int_equal(nodegpu_parse(g, NULL, &inv, &e), 0);
    assert_int_equal(inv.n, 3);
    assert_non_null(inv.model[0].links);
    assert_true(inv.model[0].links[0] & 0x2);
    assert_false(inv.model[0].links[0] & 0x5);
    assert_true(inv.model[1].links[0] & 0x1);
    assert_null(inv.model[2].links);
    nodegpu_fini(&inv);
    json_decref(g);
}

static void test_tres_and_lists(void **state)
{
    struct tres t = {4, 16384, 1, 4, 2, "a100"};
    struct tres n = {16, 64000, 0, 16, 4, NULL};
    const uint32_t idx[] = {3, 0, 1, 7, 6};
    char buf[256];

    (void)state;
    assert_string_equal(tres_format(&t, buf, sizeof(buf)),
                        "cpu=4,mem=16G,node=1,billing=4,gres/gpu=2,"
                        "gres/gpu:a100=2");
    assert_string_equal(tres_format(&n, buf, sizeof(buf)),
                        "cpu=16,mem=64000M,billing=16,gres/gpu=4");
    assert_string_equal(nodegpu_idx_list(idx, 5, buf, sizeof(buf)),
                        "0-1,3,6-7");
    assert_string_equal(nodegpu_idx_list(idx, 0, buf, sizeof(buf)), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_and_restart, setup, teardown),
        cmocka_unit_test(test_inventory_check),
        cmocka_unit_test(test_inventory_parse),
        cmocka_unit_test(test_tres_and_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
