/*
 * sluicectld with GPU nodes, driven by fake node daemons: the GPU indices
 * JOB_LAUNCH carries, freed GPUs taken by the next job at once, a node
 * whose GPUs fall short of Gres= marked INVALID with the node's note, and
 * a job waiting for it that names the node and the cause.
 */
#include "ctld_harness.h"

static void write_gpu_conf(struct fx *f)
{
    FILE *fp = fopen(f->conf, "w");

    assert_non_null(fp);
    fprintf(fp,
            "AuthType=auth/key\nAuthInfo=%s\n"
            "ClusterName=t\nSlurmctldHost=localhost(127.0.0.1)\n"
            "SlurmctldPort=%u\n"
            "StateSaveLocation=%s/state\nSlurmdTimeout=30\nKillWait=1\n"
            "GresTypes=gpu\n"
            "NodeName=node[01-02] CPUs=4 RealMemory=8000 Gres=gpu:2\n"
            "PartitionName=gpu Nodes=node[01-02] Default=YES "
            "MaxTime=1:00:00\n"
            "PartitionName=one Nodes=node02 MaxTime=1:00:00\n",
            f->key, f->port, f->dir);
    fclose(fp);
}

static int gpu_setup(void **state)
{
    struct fx *f;

    if (setup(state) < 0)
        return -1;
    f = *state;
    stop(f, SIGKILL); /* it may not have its signal handlers yet */
    write_gpu_conf(f);
    spawn(f);
    return 0;
}

/* A node registering with gpus (a JSON array text) and gres_note. */
static struct peer *gpu_node_up(struct fx *f, const char *name,
                                const char *gpus, const char *note,
                                json_t **reply)
{
    struct peer *p = peer_open(f);
    json_t *body = json_pack("{s:s, s:i, s:i, s:o, s:o}", "node", name, "cpus",
                             4, "mem_mib", 8000, "jobs", json_array(), "gpus",
                             json_loads(gpus, 0, NULL));

    peer_as_node(f, p, name);
    if (note != NULL)
        json_object_set_new(body, "gres_note", json_string(note));
    *reply = peer_call(p, PROTO_MSG_NODE_REGISTER, body, NULL);
    assert_true(json_is_true(json_object_get(*reply, "accepted")));
    return p;
}

static const char two[] = "[{\"index\": 0, \"type\": \"\", \"file\": null}, "
                          "{\"index\": 1, \"type\": \"\", \"file\": null}]";

/* The "gpus" of the next JOB_LAUNCH on p, as "0,1"; its job id in *id. */
static void launched_gpus(struct peer *p, char *buf, size_t len, uint64_t *id)
{
    json_t *l = peer_expect(p, PROTO_MSG_JOB_LAUNCH, 3000, NULL), *v;
    size_t i, off = 0;

    assert_non_null(l);
    *id = launched_id(l);
    buf[0] = '\0';
    json_array_foreach(json_object_get(json_object_get(l, "job"), "gpus"), i, v)
    {
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
                                (long long)json_integer_value(v));
    }
    json_decref(l);
}

static void test_launch_gpus(void **state)
{
    struct fx *f = *state;
    json_t *reply;
    struct peer *n1 = gpu_node_up(f, "node01", two, NULL, &reply);
    uint64_t a, b, c, id;
    char g1[32], g2[32], g3[32];

    json_decref(reply);
    a = submit(f, ", \"gres\": \"gpu:1\", \"nodelist\": \"node01\"");
    launched_gpus(n1, g1, sizeof(g1), &id);
    assert_int_equal(id, a);
    b = submit(f, ", \"gres\": \"gpu:1\", \"nodelist\": \"node01\"");
    launched_gpus(n1, g2, sizeof(g2), &id);
    assert_int_equal(id, b);
    assert_true(strcmp(g1, g2) != 0);
    assert_true(strcmp(g1, "0") == 0 || strcmp(g1, "1") == 0);
    /* node01's GPUs are taken: the third waits, then gets a's GPU at once */
    c = submit(f, ", \"gres\": \"gpu:1\", \"nodelist\": \"node01\"");
    assert_job(f, c, "state_reason", "Resources");
    job_end(n1, "node01", a, 0, 0);
    launched_gpus(n1, g3, sizeof(g3), &id);
    assert_int_equal(id, c);
    assert_string_equal(g3, g1);
    assert_job(f, c, "tres_alloc_str", "cpu=1,node=1,billing=1,gres/gpu=1");
    peer_close(n1);
}

static void test_short_node_invalid(void **state)
{
    struct fx *f = *state;
    json_t *reply;
    struct peer *n2 = gpu_node_up(
        f, "node02", "[]",
        "no gres.conf and NVML not found: install the NVIDIA driver or add "
        "gres.conf",
        &reply);
    const char *want = "gres/gpu count reported 0 < configured 2 (no "
                       "gres.conf and NVML not found: install the NVIDIA "
                       "driver or add gres.conf)";
    char *v, detail[512];
    uint64_t id;

    assert_string_equal(json_string_value(json_object_get(reply, "reason")),
                        want);
    json_decref(reply);
    wait_node_state(f, "node02", "INVALID", 1000);
    v = node_field(f, "node02", "reason");
    assert_string_equal(v, want);
    free(v);
    v = node_field(f, "node02", "gres_note");
    assert_non_null(strstr(v, "NVML not found"));
    free(v);
    id = submit(f, ", \"partition\": \"one\", \"gres\": \"gpu:1\"");
    assert_job(f, id, "state_reason",
               "ReqNodeNotAvail, UnavailableNodes:node02");
    snprintf(detail, sizeof(detail),
             "ReqNodeNotAvail, UnavailableNodes:node02; node02 INVALID: %s",
             want);
    assert_job(f, id, "state_description", detail);
    /* the node comes back with its GPUs: the job runs there */
    peer_close(n2);
    n2 = gpu_node_up(f, "node02", two, NULL, &reply);
    assert_true(json_is_null(json_object_get(reply, "reason")));
    json_decref(reply);
    json_decref(peer_expect(n2, PROTO_MSG_JOB_LAUNCH, 3000, NULL));
    assert_job(f, id, "job_state", "RUNNING");
    peer_close(n2);
}

static void test_bad_gpu_list(void **state)
{
    struct fx *f = *state;
    json_t *reply;
    struct peer *n1 =
        gpu_node_up(f, "node01", "[{\"index\": \"zero\"}]", NULL, &reply);

    /* registered, but INVALID with the reason, rather than refused */
    assert_non_null(strstr(json_string_value(json_object_get(reply, "reason")),
                           "unreadable GPU list: gpus[0]: expected"));
    json_decref(reply);
    wait_node_state(f, "node01", "INVALID", 1000);
    peer_close(n1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_launch_gpus, gpu_setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_node_invalid, gpu_setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_gpu_list, gpu_setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
