/*
 * The simulator's readers (src/sim/swf.c, alibaba.c, history.c, acct.c,
 * map.c), table-driven: good lines, and bad ones refused with the file
 * and line; SWF records mapped onto a configuration (sizes, GPUs,
 * partitions, users, the seeded requested times); pods onto one; the
 * Alibaba node list made into a configuration that parses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sim/acct.h"
#include "sim/alibaba.h"
#include "sim/history.h"
#include "sim/map.h"
#include "sim/swf.h"

#define SWF_LINE(job, submit, wait, run, procs, req, user, part)               \
#job " " #submit " " #wait " " #run " " #procs " -1 -1 " #procs " " #req   \
         " -1 1 " #user " 3 -1 -1 " #part " -1 -1\n"

static void test_swf_parse(void **state)
{
    static const struct {
        const char *text;
        int rc;
        size_t n;
        const char *err; /* a piece of the message */
    } cases[] = {
        {"", 0, 0, NULL},
        {"; MaxNodes: 24\n; MaxProcs: 1728\n;\n", 0, 0, NULL},
        {SWF_LINE(1, 0, 5, 100, 4, 3600, 7, 0), 0, 1, NULL},
        /* blank lines, CRLF, tabs, a fraction */
        {"\n1\t0 5 100.5 4 -1 -1 4 3600 -1 1 7 3 -1 -1 0 -1 -1\r\n\n", 0, 1,
         NULL},
        {"1 0 5 100 4\n", -1, 0, "t.swf:1: expected 18 fields, found 5"},
        {"; c\n1 0 5 100 4 -1 -1 4 3600 -1 1 7 3 -1 -1 0 -1 -1 9\n", -1, 0,
         "t.swf:2: expected 18 fields, found more"},
        {"1 0 5 x 4 -1 -1 4 3600 -1 1 7 3 -1 -1 0 -1 -1\n", -1, 0,
         "t.swf:1: field 4 (run time): \"x\" is not a number"},
        {"1 0 5 1e300 4 -1 -1 4 3600 -1 1 7 3 -1 -1 0 -1 -1\n", -1, 0,
         "field 4 (run time)"},
        {"1 0 5 nan 4 -1 -1 4 3600 -1 1 7 3 -1 -1 0 -1 -1\n", -1, 0,
         "is not a number"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_swf s;
        struct err e = {0};
        int rc = sim_swf_parse(cases[i].text, strlen(cases[i].text), "t.swf",
                               &s, &e);
        if (rc != cases[i].rc)
            fail_msg("case %zu: rc %d (%s)", i, rc, e.text);
        if (rc == 0)
            assert_int_equal(s.n, cases[i].n);
        else
            assert_non_null(strstr(e.text, cases[i].err));
        sim_swf_free(&s);
    }
}

static const char quant[] =
    "ClusterName=q\nSlurmctldHost=m\nGresTypes=gpu\n"
    "NodeName=node[01-04] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=prod Nodes=node01 MaxTime=INFINITE Priority=100\n"
    "PartitionName=backtest Nodes=node02,node03 Default=YES "
    "MaxTime=72:00:00\n"
    "PartitionName=dev Nodes=node04 MaxTime=24:00:00 Priority=10\n";

static void test_swf_jobs(void **state)
{
    /* the source machine has 72 processors a node (1728 / 24) */
    static const char text[] =
        "; MaxNodes: 24\n; MaxProcs: 1728\n"
        "; UnixStartTime: 1000000\n" SWF_LINE(10, 60, 5, 100, 36, 3600, 7, 0)
            SWF_LINE(11, 70, -1, 50, 88, -1, -1, 1)
                SWF_LINE(12, 80, 0, -1, 1, 60, 2, 2)
                    SWF_LINE(13, 90, 0, 5, 1, 60, 2, 9);
    struct conf *c = conf_parse_string(quant, "q.conf", NULL, NULL);
    struct sim_map map = {0};
    struct sim_swf s;
    struct sim_trace t;
    struct err e;

    (void)state;
    assert_non_null(c);
    assert_int_equal(sim_swf_parse(text, strlen(text), "t.swf", &s, &e), 0);
    assert_int_equal(s.max_procs, 1728);
    assert_int_equal(s.unix_start, 1000000);
    assert_int_equal(sim_map_parse("0=prod:gpu,*=dev", &map, &e), 0);
    sim_trace_init(&t, "t.swf");
    assert_int_equal(sim_swf_jobs(&s, c, &map, 1, &t, &e), 0);
    /* job 12 has no run time */
    assert_int_equal(t.n, 3);
    assert_int_equal(t.skipped, 1);
    /* 36 of 72 processors: half a node of 16 CPUs and 4 GPUs */
    assert_int_equal(t.jobs[0].id, 10);
    assert_int_equal(t.jobs[0].submit, 1000060);
    assert_int_equal(t.jobs[0].rec_start, 1000065);
    assert_true(t.jobs[0].has_rec);
    assert_string_equal(t.jobs[0].part, "prod");
    assert_string_equal(t.jobs[0].user, "u7");
    assert_string_equal(t.jobs[0].account, "g3");
    assert_int_equal(t.jobs[0].nodes, 1);
    assert_int_equal(t.jobs[0].cpus_per_node, 8);
    assert_int_equal(t.jobs[0].gpus_per_node, 2);
    assert_int_equal(t.jobs[0].limit_s, 3600);
    /* 88 processors: two nodes of 44, no GPUs in dev without :gpu; no
     * requested time: its run time times U(1, 5); no user: u0..u15 */
    assert_int_equal(t.jobs[1].nodes, 2);
    assert_int_equal(t.jobs[1].cpus_per_node, 10);
    assert_int_equal(t.jobs[1].gpus_per_node, 0);
    assert_string_equal(t.jobs[1].part, "dev");
    assert_false(t.jobs[1].has_rec);
    assert_in_range(t.jobs[1].limit_s, 50, 250);
    assert_true(t.jobs[1].user[0] == 'u');
    /* partition 9: the map's "*" */
    assert_string_equal(t.jobs[2].part, "dev");
    sim_trace_free(&t);
    /* without a map: partition numbers index the configuration */
    sim_trace_init(&t, "t.swf");
    sim_map_free(&map);
    assert_int_equal(sim_swf_jobs(&s, c, &map, 1, &t, &e), 0);
    assert_string_equal(t.jobs[0].part, "prod");
    assert_string_equal(t.jobs[1].part, "backtest");
    assert_string_equal(t.jobs[2].part, "backtest"); /* 9: the default */
    assert_int_equal(t.jobs[0].gpus_per_node, 0);
    sim_trace_free(&t);
    /* a map naming a partition the configuration lacks */
    sim_trace_init(&t, "t.swf");
    assert_int_equal(sim_map_parse("0=gpu", &map, &e), 0);
    assert_int_equal(sim_swf_jobs(&s, c, &map, 1, &t, &e), -1);
    assert_non_null(strstr(e.text, "no partition gpu"));
    sim_trace_free(&t);
    sim_map_free(&map);
    sim_swf_free(&s);
    conf_destroy(c);
}

static void test_map(void **state)
{
    static const struct {
        const char *s;
        int rc;
    } cases[] = {
        {"0=prod", 0},        {"0=prod:gpu,1=dev:gpu=2:qos=dev_qos", 0},
        {"LS=prod:nogpu", 0}, {"0", -1},
        {"=prod", -1},        {"0=prod:gpu=0", -1},
        {"0=prod:fast", -1},  {"0=prod:qos=", -1},
    };
    struct sim_map m = {0};
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (sim_map_parse(cases[i].s, &m, &e) != cases[i].rc)
            fail_msg("case %zu: %s", i, cases[i].s);
        if (cases[i].rc < 0)
            assert_non_null(strstr(e.text, "--map"));
    }
    assert_int_equal(sim_map_parse("0=prod:gpu=2:qos=q,*=dev", &m, &e), 0);
    assert_int_equal(m.n, 2);
    assert_int_equal(sim_map_find(&m, "0")->gpu, SIM_MAP_GPU_FIXED);
    assert_int_equal(sim_map_find(&m, "0")->gpus, 2);
    assert_string_equal(sim_map_find(&m, "0")->qos, "q");
    assert_string_equal(sim_map_find(&m, "7")->part, "dev");
    sim_map_free(&m);
    assert_null(sim_map_find(&m, "0"));
}

#define POD_HEAD                                                               \
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"      \
    "creation_time,deletion_time,scheduled_time\n"

static void test_alibaba_parse(void **state)
{
    static const struct {
        const char *text;
        int rc;
        size_t n;
        const char *err;
    } cases[] = {
        {POD_HEAD, 0, 0, NULL},
        {POD_HEAD "p0,12000,16384,1,1000,,LS,Running,0,100,5\n", 0, 1, NULL},
        /* columns in another order, found by name */
        {"qos,name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,pod_phase,"
         "scheduled_time,creation_time,deletion_time\r\n"
         "BE,p,1000,10,0,0,,Failed,,3,4\r\n",
         0, 1, NULL},
        {"", -1, 0, "p.csv:1: expected a header"},
        {"name,cpu_milli\n", -1, 0, "p.csv:1: no column memory_mib"},
        {POD_HEAD "p0,12000,16384,x,1000,,LS,Running,0,100,5\n", -1, 0,
         "p.csv:2: num_gpu: \"x\" is not a number"},
        {POD_HEAD "p0,1,1,1,1,,LS\n", -1, 0, "p.csv:2: expected"},
        {POD_HEAD "\np0,1,1,1,1,,LS,Running,,,\n", -1, 0,
         "p.csv:3: creation_time"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_alibaba a;
        struct err e = {0};
        int rc = sim_alibaba_parse(cases[i].text, strlen(cases[i].text),
                                   "p.csv", &a, &e);
        if (rc != cases[i].rc)
            fail_msg("case %zu: rc %d (%s)", i, rc, e.text);
        if (rc == 0)
            assert_int_equal(a.n, cases[i].n);
        else if (strstr(e.text, cases[i].err) == NULL)
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.text, cases[i].err);
        sim_alibaba_free(&a);
    }
}

static void test_alibaba_jobs(void **state)
{
    static const char pods[] =
        POD_HEAD "p0,12500,16384,1,460,V100M16|V100M32,LS,Running,10,110,20\n"
                 "p1,0,1024,2,1000,,BE,Succeeded,30,40,35\n"
                 "p2,1000,1024,1,1000,,BE,Pending,50,60,\n";
    static const char nodes[] = "sn,cpu_milli,memory_mib,gpu,model\n"
                                "n0,64000,262144,2,V100M16\n"
                                "n1,96000,786432,8,A10\n";
    struct sim_alibaba a;
    struct sim_map map = {0};
    struct sim_trace t;
    struct conf *c;
    char *text;
    struct err e;

    (void)state;
    text = sim_alibaba_conf(nodes, strlen(nodes), "n.csv", &e);
    assert_non_null(text);
    c = conf_parse_string(text, "n.conf", NULL, &e);
    if (c == NULL)
        fail_msg("%s\n%s", e.text, text);
    assert_int_equal(c->n_nodes, 2);
    assert_int_equal(c->nodes[1].cpus, 96);
    assert_int_equal(c->n_parts, 1);
    free(text);
    assert_int_equal(sim_alibaba_parse(pods, strlen(pods), "p.csv", &a, &e), 0);
    assert_int_equal(sim_map_parse("LS=all:qos=ls", &map, &e), 0);
    sim_trace_init(&t, "p.csv");
    assert_int_equal(sim_alibaba_jobs(&a, c, &map, &t, &e), 0);
    /* p2 was never scheduled: it never ran */
    assert_int_equal(t.n, 2);
    assert_int_equal(t.skipped, 1);
    assert_int_equal(t.jobs[0].submit, 10);
    assert_int_equal(t.jobs[0].run_s, 90);
    assert_int_equal(t.jobs[0].rec_start, 20);
    assert_int_equal(t.jobs[0].cpus_per_node, 13);
    assert_int_equal(t.jobs[0].gpus_per_node, 1); /* a shared GPU: whole */
    assert_string_equal(t.jobs[0].gpu_type, "v100m16");
    assert_string_equal(t.jobs[0].qos, "ls");
    assert_int_equal(t.jobs[1].cpus_per_node, 1);
    assert_int_equal(t.jobs[1].mem_per_node_mib, 1024);
    assert_null(t.jobs[1].qos);
    sim_trace_free(&t);
    sim_map_free(&map);
    sim_alibaba_free(&a);
    conf_destroy(c);
    /* a bad node list */
    assert_null(sim_alibaba_conf("sn,cpu_milli,memory_mib,gpu,model\n"
                                 "n 0,1,1,1,x\n",
                                 60, "n.csv", &e));
    assert_non_null(strstr(e.text, "n.csv:2"));
}

static void test_history(void **state)
{
    static const char text[] =
        "{\"jobs\": ["
        "{\"job_id\": 1, \"partition\": \"dev\", \"user_name\": \"li\", "
        "\"account\": \"a\", \"qos\": \"normal\", \"submit_time\": 100, "
        "\"start_time\": 108, \"end_time\": 116, \"time_limit_s\": 300, "
        "\"nodes\": 1, \"cpus\": 2, \"req_tres\": "
        "\"billing=2,cpu=2,gres/gpu=2,mem=1G,node=1\", \"events\": ["
        "{\"time\": 101, \"event\": \"start\"}, {\"time\": 108, \"event\": "
        "\"start\"}]},"
        "{\"job_id\": 2, \"submit_time\": 100, \"start_time\": null, "
        "\"end_time\": 120},"
        "{\"job_id\": 3, \"submit_time\": 100, \"start_time\": 110, "
        "\"end_time\": null, \"time_limit_s\": null},"
        "{\"job_id\": 5, \"submit_time\": 100, \"start_time\": 110, "
        "\"end_time\": 111, \"nodes\": 2, \"req_tres\": "
        "\"cpu=2,gres/gpu=4,gres/gpu:h200=4,node=2\"}]}";
    struct sim_trace t;
    struct err e;

    (void)state;
    sim_trace_init(&t, "h.json");
    assert_int_equal(sim_history_parse(text, strlen(text), "h.json", &t, &e),
                     0);
    /* 2 never ran, 3 still runs */
    assert_int_equal(t.n, 2);
    assert_int_equal(t.skipped, 2);
    assert_int_equal(t.jobs[0].run_s, 8);       /* its last run */
    assert_int_equal(t.jobs[0].rec_start, 101); /* its first start */
    assert_int_equal(t.jobs[0].gpus_per_node, 2);
    assert_int_equal(t.jobs[0].mem_per_node_mib, 1024);
    assert_int_equal(t.jobs[0].cpus_per_node, 2);
    assert_string_equal(t.jobs[0].user, "li");
    assert_null(t.jobs[0].gpu_type); /* any GPU */
    /* a typed request keeps its type, per node */
    assert_int_equal(t.jobs[1].gpus_per_node, 2);
    assert_string_equal(t.jobs[1].gpu_type, "h200");
    sim_trace_free(&t);
    sim_trace_init(&t, "h.json");
    assert_int_equal(sim_history_parse("{\"jobs\": [{\"job_id\": 4}]}", 25,
                                       "h.json", &t, &e),
                     -1);
    assert_non_null(strstr(e.text, "job 4: submit_time"));
    assert_int_equal(sim_history_parse("{", 1, "h.json", &t, &e), -1);
    assert_non_null(strstr(e.text, "h.json:"));
    sim_trace_free(&t);
}

static void test_acct(void **state)
{
    static const char good[] =
        "# a dump with QOS lines\n"
        "Cluster - 'q':Fairshare=1:QOS='normal'\n"
        "QOS - 'dev_qos':Priority=100:MaxJobsPerUser=2:GrpTRES=gres/gpu=4\n"
        "QOS - 'prod_qos':Priority=1000:Preempt='dev_qos':"
        "PreemptMode=requeue:GraceTime=30:PreemptExemptTime=00:05:00:"
        "UsageFactor=2:Flags=DenyOnLimit\n"
        "Parent - 'root'\n"
        "Account - 'quant':Description='quant: team':Fairshare=10\n"
        "Parent - 'quant'\n"
        "User - 'zhangsan':DefaultAccount='quant':QOS='prod_qos,dev_qos':"
        "DefaultQOS='dev_qos':MaxJobs=3\n";
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"Bogus - 'x'\n", "a.txt:1: unknown line kind"},
        {"QOS - 'x':Speed=3\n", "a.txt:1: unknown QOS key Speed"},
        {"QOS - 'x':Preempt='y'\n", "a.txt:1: Preempt='y': no QOS y"},
        {"\nQOS - 'x':PreemptMode=sometimes\n", "a.txt:2: PreemptMode"},
        {"QOS - 'x':MaxJobsPerUser=many\n", "a.txt:1: MaxJobsPerUser=many"},
        {"Parent - 'nope'\n", "a.txt:1: Parent - 'nope'"},
        {"User - 'u':DefaultQOS='gold'\n", "a.txt:1: DefaultQOS=gold"},
        {"User 'u'\n", "a.txt:1: expected"},
    };
    struct sim_acct a;
    struct err e;
    size_t q, as;
    size_t n;

    (void)state;
    sim_acct_init(&a);
    assert_int_equal(sim_acct_load(&a, good, strlen(good), "a.txt", &e), 0);
    q = sim_acct_qos(&a, "prod_qos");
    assert_int_not_equal(q, SIZE_MAX);
    assert_int_equal(a.qos[q].priority, 1000);
    assert_int_equal(a.qos[q].pq.npreempt, 1);
    assert_string_equal(a.qos[q].pq.preempt[0], "dev_qos");
    assert_true(a.qos[q].pq.mode_set);
    assert_int_equal(a.qos[q].pq.mode, CONF_PREEMPT_MODE_REQUEUE);
    assert_int_equal(a.qos[q].pq.grace_time_s, 30);
    assert_int_equal(a.qos[q].pq.exempt_time_s, 300);
    assert_true(a.qos[q].usage_factor == 2.0);
    assert_true(a.qos[q].flags & SIM_QOS_DENY_ON_LIMIT);
    q = sim_acct_qos(&a, "dev_qos");
    assert_int_equal(a.qos[q].lim.max_jobs_pu, 2);
    assert_int_equal(a.qos[q].lim.grp_tres[LIMITS_TRES_GPU], 4);
    as = sim_acct_user_assoc(&a, "zhangsan", "quant");
    assert_int_not_equal(as, SIZE_MAX);
    assert_int_equal(a.assoc[as].lim.max_jobs_pu, 3);
    assert_string_equal(sim_acct_default_qos(&a, as), "dev_qos");
    assert_non_null(sim_acct_qos_list(&a, as, &n));
    assert_int_equal(n, 2);
    assert_int_equal(sim_acct_shares(&a, a.assoc[as].parent), 10);
    assert_int_equal(sim_acct_max_qos_prio(&a), 1000);
    /* a user the file lacks: made under its account (here: default) */
    as = sim_acct_ensure(&a, "wang", NULL);
    assert_string_equal(a.assoc[as].account, "default");
    assert_string_equal(sim_acct_default_qos(&a, as), "normal");
    assert_int_equal(sim_acct_ensure(&a, "zhangsan", NULL),
                     sim_acct_user_assoc(&a, "zhangsan", "quant"));
    sim_acct_free(&a);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sim_acct_init(&a);
        if (sim_acct_load(&a, bad[i].text, strlen(bad[i].text), "a.txt", &e) !=
                -1 ||
            strstr(e.text, bad[i].err) == NULL)
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.text, bad[i].err);
        sim_acct_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swf_parse),
        cmocka_unit_test(test_swf_jobs),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_alibaba_parse),
        cmocka_unit_test(test_alibaba_jobs),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_acct),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
