/*
 * Unit tests for the configuration parser: the seed's lines and what they
 * mean, DEFAULT lines, Priority= versus PriorityTier=, the lexer's rules,
 * semantic warnings and errors with their lines, the canonical print's
 * round trip, JSON, Include, and gres.conf.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/gres.h"
#include "common/gresconf.h"
#include "common/timefmt.h"

#define HEAD "ClusterName=c\nSlurmctldHost=ctl\n"

static const char seed[] =
    "ClusterName=quant-cluster\n"
    "SlurmctldHost=master\n"
    "NodeName=node[01-04] CPUs=16 RealMemory=64000 Gres=gpu:4\n"
    "PartitionName=prod Nodes=node01 Default=NO MaxTime=INFINITE State=UP "
    "Priority=100\n"
    "PartitionName=backtest Nodes=node02,node03 Default=YES "
    "MaxTime=72:00:00 State=UP Priority=50\n"
    "PartitionName=dev Nodes=node04 Default=NO MaxTime=24:00:00 State=UP "
    "Priority=10\n"
    "PreemptMode=REQUEUE\n"
    "PreemptType=preempt/partition_prio\n"
    "PreemptExemptTime=00:05:00\n"
    "PriorityWeightAge=1000\n";

static struct conf *parse(const char *text, struct conf_diag *d)
{
    struct err e;
    struct conf *c;

    conf_diag_init(d);
    c = conf_parse_string(text, "t.conf", d, &e);
    if (c == NULL)
        print_message("parse failed: %s\n", e.text);
    return c;
}

/* The diag item whose text contains needle, or NULL. */
static const struct conf_diag_item *diag_find(const struct conf_diag *d,
                                              const char *needle)
{
    for (size_t i = 0; i < d->n; i++)
        if (strstr(d->items[i].text, needle) != NULL)
            return &d->items[i];
    return NULL;
}

static void test_seed_values(void **state)
{
    struct conf_diag d;
    struct conf *c = parse(seed, &d);
    const struct conf_part *prod, *bt, *dev;

    (void)state;
    assert_non_null(c);
    assert_string_equal(c->cluster_name, "quant-cluster");
    assert_int_equal(c->n_ctld_hosts, 1);
    assert_string_equal(c->ctld_hosts[0].host, "master");
    assert_int_equal(c->slurmctld_port, 7817);
    assert_int_equal(c->slurmd_port, 7818);
    assert_int_equal(c->n_nodes, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(c->nodes[i].cpus, 16);
        assert_int_equal(c->nodes[i].mem_mib, 64000);
        assert_int_equal(gres_count(c->nodes[i].gres, "gpu", NULL), 4);
        assert_int_equal(c->nodes[i].port, 7818);
        assert_int_equal(c->nodes[i].state, CONF_NODE_UNKNOWN);
    }
    assert_string_equal(c->nodes[3].name, "node04");
    prod = conf_part_find(c, "prod");
    bt = conf_part_find(c, "backtest");
    dev = conf_part_find(c, "dev");
    assert_non_null(prod);
    assert_non_null(bt);
    assert_non_null(dev);
    assert_ptr_equal(conf_part_default(c), bt);
    assert_int_equal(prod->priority_tier, 100);
    assert_int_equal(prod->priority_job_factor, 100);
    assert_int_equal(bt->priority_tier, 50);
    assert_int_equal(dev->priority_tier, 10);
    assert_true(prod->max_time_s == TIMEFMT_INFINITE);
    assert_int_equal(bt->max_time_s, 72 * 3600);
    assert_int_equal(dev->max_time_s, 24 * 3600);
    assert_int_equal(bt->n_nodes, 2);
    assert_int_equal(bt->node_idx[0], 1);
    assert_int_equal(bt->node_idx[1], 2);
    assert_int_equal(c->preempt_type, CONF_PREEMPT_PARTITION_PRIO);
    assert_int_equal(c->preempt_mode.mode, CONF_PREEMPT_MODE_REQUEUE);
    assert_int_equal(dev->preempt_mode.mode, CONF_PREEMPT_MODE_REQUEUE);
    assert_true(dev->preempt_mode_inherited);
    assert_int_equal(c->preempt_exempt_time_s, 300);
    assert_int_equal(c->priority_weight_age, 1000);
    /* the two warnings the seed deserves, and no error */
    assert_int_equal(d.n_errors, 0);
    assert_non_null(diag_find(&d, "gpu added to GresTypes because node01"));
    assert_string_equal(c->gres_types, "gpu");
    assert_non_null(diag_find(&d, "no job can ever be preempted"));
    assert_int_equal(diag_find(&d, "can ever be preempted")->line, 8);
    assert_non_null(conf_node_find(c, "node03"));
    assert_null(conf_node_find(c, "node3"));
    conf_destroy(c);
    conf_diag_free(&d);
}

static void test_defaults(void **state)
{
    struct conf_diag d;
    struct conf *c = parse(HEAD "NodeName=n1\nPartitionName=p Nodes=n1\n", &d);

    (void)state;
    assert_non_null(c);
    assert_int_equal(c->slurmd_timeout_s, 300);
    assert_int_equal(c->kill_wait_s, 30);
    assert_int_equal(c->message_timeout_s, 10);
    assert_int_equal(c->priority_max_age_s, 7 * 86400);
    assert_int_equal(c->priority_decay_half_life_s, 7 * 86400);
    assert_int_equal(c->scheduler_type, CONF_SCHED_BACKFILL);
    assert_int_equal(c->priority_type, CONF_PRIORITY_BASIC);
    assert_int_equal(c->preempt_type, CONF_PREEMPT_NONE);
    assert_int_equal(c->preempt_mode.mode, CONF_PREEMPT_MODE_OFF);
    assert_int_equal(c->auth_type, CONF_AUTH_MUNGE);
    assert_int_equal(c->max_job_count, 10000);
    assert_string_equal(c->state_save_location, "/var/spool/sluice/ctld");
    assert_string_equal(c->slurmd_spool_dir, "/var/spool/sluice/d");
    assert_int_equal(c->enforce_part_limits, CONF_ENFORCE_NO);
    assert_int_equal(c->sluice_daemon_nice, -10);
    assert_int_equal(c->nodes[0].cpus, 1);
    assert_int_equal(c->nodes[0].mem_mib, 1);
    assert_int_equal(c->nodes[0].weight, 1);
    assert_string_equal(c->nodes[0].hostname, "n1");
    assert_string_equal(c->nodes[0].addr, "n1");
    assert_int_equal(c->parts[0].state, CONF_PART_UP);
    assert_true(c->parts[0].max_time_s == TIMEFMT_INFINITE);
    assert_int_equal(c->parts[0].max_nodes, CONF_UNLIMITED);
    /* no Default=YES: the first partition, with a warning saying so */
    assert_true(c->parts[0].is_default);
    assert_non_null(diag_find(&d, "go to p, the first one defined"));
    conf_destroy(c);
    conf_diag_free(&d);
}

struct prio_case {
    const char *line;
    unsigned tier, factor;
};

static void test_priority_shorthand(void **state)
{
    static const struct prio_case cases[] = {
        {"Priority=100", 100, 100},
        {"PriorityTier=7 Priority=50", 7, 50},
        {"Priority=50 PriorityJobFactor=3", 50, 3},
        {"PriorityTier=4 PriorityJobFactor=5", 4, 5},
        {"", 1, 1},
    };
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct conf_diag d;
        struct conf *c;
        snprintf(text, sizeof(text),
                 HEAD "NodeName=n1\nPartitionName=p Nodes=n1 Default=YES %s\n",
                 cases[i].line);
        c = parse(text, &d);
        assert_non_null(c);
        assert_int_equal(c->parts[0].priority_tier, cases[i].tier);
        assert_int_equal(c->parts[0].priority_job_factor, cases[i].factor);
        conf_destroy(c);
        conf_diag_free(&d);
    }
}

static void test_default_lines(void **state)
{
    struct conf_diag d;
    struct conf *c =
        parse(HEAD "NodeName=DEFAULT CPUs=32 RealMemory=4G Gres=gpu:8\n"
                   "NodeName=g[1-2]\n"
                   "NodeName=DEFAULT CPUs=8 Gres=\"\"\n"
                   "NodeName=c1 RealMemory=100\n"
                   "PartitionName=DEFAULT MaxTime=1-0 PriorityTier=9\n"
                   "PartitionName=a Nodes=g[1-2] Default=YES\n"
                   "PartitionName=b Nodes=c1 Priority=2 MaxTime=10\n",
              &d);

    (void)state;
    assert_non_null(c);
    assert_int_equal(c->nodes[0].cpus, 32);
    assert_int_equal(c->nodes[1].mem_mib, 4096);
    assert_int_equal(gres_count(c->nodes[1].gres, "gpu", NULL), 8);
    assert_int_equal(c->nodes[2].cpus, 8);
    assert_int_equal(c->nodes[2].mem_mib, 100);
    assert_int_equal(c->nodes[2].gres->n, 0);
    assert_int_equal(c->parts[0].max_time_s, 86400);
    assert_int_equal(c->parts[0].priority_tier, 9);
    assert_int_equal(c->parts[1].priority_tier, 2);
    assert_int_equal(c->parts[1].max_time_s, 600);
    assert_int_equal(c->parts[1].default_time_s, 600);
    assert_null(conf_node_find(c, "DEFAULT"));
    conf_destroy(c);
    conf_diag_free(&d);
}

static void test_lexer(void **state)
{
    struct conf_diag d;
    struct conf *c = parse("clustername=\"my cluster\" # trailing comment\n"
                           "SLURMCTLDHOST=master(10.0.0.1)\n"
                           "ControlMachine=backup\n"
                           "NodeName=n[1-2] \\\n"
                           "   CPUs=4 \\\n"
                           "   Features=\"a#b\"\n"
                           "PartitionName=p Nodes=ALL\n",
                           &d);

    (void)state;
    assert_non_null(c);
    assert_string_equal(c->cluster_name, "my cluster");
    assert_int_equal(c->n_ctld_hosts, 2);
    assert_string_equal(c->ctld_hosts[0].addr, "10.0.0.1");
    assert_string_equal(c->ctld_hosts[1].host, "backup");
    assert_string_equal(c->ctld_hosts[1].addr, "");
    assert_int_equal(c->nodes[1].cpus, 4);
    assert_string_equal(c->nodes[1].features, "a#b");
    assert_int_equal(c->parts[0].n_nodes, 2);
    conf_destroy(c);
    conf_diag_free(&d);
}

struct bad_case {
    const char *text; /* after HEAD */
    const char *needle;
    int line, col;
};

static void test_errors(void **state)
{
    static const struct bad_case cases[] = {
        {"NodeName=node[01-04 CPUs=4\n", "unterminated", 3, 1},
        {"NodeName=n[4-1]\n", "descending", 3, 1},
        {"NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=59:60\n", "59:60", 4,
         26},
        {"NodeName=n1 RealMemory=lots\n", "RealMemory=lots", 3, 13},
        {"NodeName=n1 CPUs=0\n", "CPUs=0", 3, 13},
        {"NodeName=n1\nNodeName=n1\n", "n1 already defined at t.conf:3", 4, 1},
        {"NodeName=n1\nPartitionName=p Nodes=n2\n", "node n2 is not defined", 4,
         17},
        {"=5\n", "value without a key", 3, 1},
        {"KillWait=\n", "KillWait= has no value", 3, 1},
        {"ClusterName=\"abc\n", "unterminated quote", 3, 1},
        {"NodeName=n1\nPartitionName=a Nodes=n1 Default=YES\n"
         "PartitionName=b Nodes=n1 Default=YES\n",
         "both Default=YES", 5, 1},
        {"NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=1 DefaultTime=2\n",
         "DefaultTime=00:02:00 is longer than MaxTime=00:01:00", 4, 1},
        {"PreemptMode=SOMETIMES\n", "OFF, CANCEL, REQUEUE or SUSPEND", 3, 1},
        {"PreemptType=x\n", "preempt/partition_prio", 3, 1},
        {"SluiceDaemonNice=-21\n",
         "SluiceDaemonNice=-21: expected a nice value from -20 to 19", 3, 1},
        {"SluiceDaemonNice=20\n", "expected a nice value from -20 to 19", 3, 1},
        {"SluiceDaemonNice=high\n", "expected a nice value from -20 to 19", 3,
         1},
        {"SlurmdDebug=loud\n",
         "SlurmdDebug=loud: expected quiet, fatal, error, info, verbose, "
         "debug, debug2, debug3, debug4 or debug5",
         3, 1},
        {"SlurmctldDebug=7\n", "SlurmctldDebug=7: expected quiet", 3, 1},
        {"NodeName=n1 State=BUSY\n", "UNKNOWN, CLOUD", 3, 13},
        {"NodeName=n[0-99999999]\n", "n[0-99999999]", 3, 1},
        {"NodeName=n1 Gres=gpu:-1\n", "Gres=gpu:-1", 3, 13},
        {"Include /nonexistent/sluice-test.conf\n", "cannot read include", 3,
         1},
        {"NodeName=n1\nPartitionName=p Nodes=n1 Default=perhaps\n",
         "Default=perhaps", 4, 26},
        {"CPUs=4 NodeName=n1\n", "must begin its line", 3, 8},
        {"NodeName=n1\nPartitionName=p Nodes=n1 Default=YES\n"
         "PreemptMode=SUSPEND\n",
         "PreemptMode=SUSPEND needs GANG", 5, 1},
        {"NodeName=n1\nPartitionName=p Nodes=n1 Default=YES "
         "PreemptMode=SUSPEND\nPreemptMode=REQUEUE\n",
         "partition p: PreemptMode=SUSPEND needs the global PreemptMode to "
         "include GANG",
         4, 1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512];
        struct conf_diag d;
        const struct conf_diag_item *it;
        struct err e;
        struct conf *c;

        snprintf(text, sizeof(text), HEAD "%s", cases[i].text);
        conf_diag_init(&d);
        errno = 0;
        c = conf_parse_string(text, "t.conf", &d, &e);
        if (c != NULL)
            print_message("case %zu parsed\n", i);
        assert_null(c);
        assert_int_equal(errno, EINVAL);
        it = diag_find(&d, cases[i].needle);
        if (it == NULL)
            print_message("case %zu: no '%s' in '%s'\n", i, cases[i].needle,
                          e.text);
        assert_non_null(it);
        assert_int_equal(it->severity, CONF_ERROR);
        assert_int_equal(it->line, cases[i].line);
        assert_int_equal(it->col, cases[i].col);
        assert_non_null(strstr(e.text, "t.conf:"));
        conf_diag_free(&d);
    }
}

struct warn_case {
    const char *text; /* after HEAD */
    const char *needle;
    int line;
};

static void test_warnings(void **state)
{
    static const struct warn_case cases[] = {
        {"NodeName=n[1-2]\nPartitionName=p Nodes=n1 Default=YES\n",
         "node n2 is in no partition", 3},
        {"NodeName=n1 Gres=gpu:2\nPartitionName=p Nodes=n1 Default=YES\n",
         "gpu added to GresTypes because n1 uses it", 3},
        {"Frobnicate=1\nNodeName=n1\nPartitionName=p Nodes=n1 Default=YES\n",
         "unknown key 'Frobnicate' ignored", 3},
        {"GresTypes=gpu\nNodeName=n1 Gres=gpu:2\n"
         "PartitionName=p Nodes=n1 Default=YES PreemptMode=SUSPEND\n"
         "PreemptType=preempt/qos\nPreemptMode=CANCEL,GANG\n",
         "its jobs holding GPUs are requeued", 5},
        {"GresTypes=gpu\nNodeName=n1 Gres=gpu:2\n"
         "PartitionName=p Nodes=n1 Default=YES PreemptMode=SUSPEND\n"
         "PreemptType=preempt/qos\nPreemptMode=CANCEL,GANG\n",
         "GANG time-slicing is not supported", 7},
        {"GresTypes=gpu\nNodeName=n1 Gres=gpu:2\n"
         "PartitionName=p Nodes=n1 Default=YES\n"
         "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n"
         "PreemptParameters=youngest_first,suspend_gpu_jobs\n",
         "partition p: PreemptMode=SUSPEND with PreemptParameters="
         "suspend_gpu_jobs: suspended jobs keep their GPUs",
         7},
        {"NodeName=n1\nPartitionName=p Nodes=n1 Default=YES MaxTime=2\n"
         "PreemptType=preempt/qos\nPreemptMode=CANCEL\n"
         "PreemptExemptTime=5\n",
         "shorter than PreemptExemptTime=00:05:00", 4},
        {"NodeName=n1 CPUs=12 Sockets=2 CoresPerSocket=4\n"
         "PartitionName=p Nodes=n1 Default=YES\n",
         "using 8, as Slurm does", 3},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512];
        struct conf_diag d;
        const struct conf_diag_item *it;
        struct conf *c;

        snprintf(text, sizeof(text), HEAD "%s", cases[i].text);
        c = parse(text, &d);
        assert_non_null(c);
        it = diag_find(&d, cases[i].needle);
        if (it == NULL)
            print_message("case %zu: no '%s'\n", i, cases[i].needle);
        assert_non_null(it);
        assert_int_equal(it->severity, CONF_WARNING);
        assert_int_equal(it->line, cases[i].line);
        conf_destroy(c);
        conf_diag_free(&d);
    }
}

/* SUSPEND,GANG on nodes without GPUs: nothing to say about SUSPEND. */
static void test_suspend_gang_clean(void **state)
{
    const char *text =
        HEAD "NodeName=n1\nPartitionName=p Nodes=n1 Default=YES\n"
             "PreemptType=preempt/partition_prio\n"
             "PreemptMode=SUSPEND,GANG\n";
    struct conf_diag d;
    struct conf *c;

    (void)state;
    c = parse(text, &d);
    assert_non_null(c);
    assert_null(diag_find(&d, "SUSPEND"));
    assert_null(diag_find(&d, "GANG"));
    assert_int_equal(c->parts[0].preempt_mode.mode, CONF_PREEMPT_MODE_SUSPEND);
    assert_true(c->preempt_mode.gang);
    assert_true(conf_preempt_param("a,suspend_gpu_jobs", "suspend_gpu_jobs"));
    assert_true(conf_preempt_param("suspend_gpu_jobs=1", "suspend_gpu_jobs"));
    assert_false(conf_preempt_param("suspend_gpu_jobsx", "suspend_gpu_jobs"));
    assert_false(conf_preempt_param(NULL, "suspend_gpu_jobs"));
    conf_destroy(c);
    conf_diag_free(&d);
}

static void test_no_preempt_warning_when_overlapping(void **state)
{
    struct conf_diag d;
    struct conf *c =
        parse(HEAD "NodeName=n[1-2] Gres=gpu:1\nGresTypes=gpu\n"
                   "PartitionName=hi Nodes=n[1-2] Priority=10\n"
                   "PartitionName=lo Nodes=n2 Priority=1 Default=YES\n"
                   "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n",
              &d);

    (void)state;
    assert_non_null(c);
    assert_int_equal(d.n, 0);
    conf_destroy(c);
    conf_diag_free(&d);
}

static char *print_to_string(const struct conf *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    assert_non_null(fp);
    conf_print(c, fp);
    fclose(fp);
    return buf;
}

static void test_round_trip(void **state)
{
    struct conf_diag d;
    struct conf *c = parse(seed, &d), *again;
    char *first, *second;

    (void)state;
    assert_non_null(c);
    first = print_to_string(c);
    conf_diag_free(&d);
    again = parse(first, &d);
    assert_non_null(again);
    second = print_to_string(again);
    assert_string_equal(first, second);
    assert_non_null(strstr(first, "PartitionName=backtest Nodes=node[02-03] "
                                  "Default=YES MaxTime=3-00:00:00"));
    assert_non_null(strstr(first, "MaxTime=1-00:00:00"));
    free(first);
    free(second);
    conf_destroy(c);
    conf_destroy(again);
    conf_diag_free(&d);
}

/* SluiceDaemonNice: -20..19, printed when not the default, and parsed
 * back to the same. */
static void test_daemon_nice(void **state)
{
    static const struct {
        const char *val;
        int nice;
        const char *printed; /* NULL: not printed (the default) */
    } cases[] = {
        {"-20", -20, "SluiceDaemonNice=-20"},
        {"-10", -10, NULL},
        {"0", 0, "SluiceDaemonNice=0"},
        {"19", 19, "SluiceDaemonNice=19"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256], *out;
        struct conf_diag d;
        struct conf *c, *again;

        snprintf(text, sizeof(text),
                 HEAD "SluiceDaemonNice=%s\nNodeName=n1\nPartitionName=p "
                      "Nodes=n1\n",
                 cases[i].val);
        c = parse(text, &d);
        assert_non_null(c);
        assert_int_equal(c->sluice_daemon_nice, cases[i].nice);
        out = print_to_string(c);
        if (cases[i].printed == NULL)
            assert_null(strstr(out, "SluiceDaemonNice"));
        else
            assert_non_null(strstr(out, cases[i].printed));
        conf_diag_free(&d);
        again = parse(out, &d);
        assert_non_null(again);
        assert_int_equal(again->sluice_daemon_nice, cases[i].nice);
        free(out);
        conf_destroy(c);
        conf_destroy(again);
        conf_diag_free(&d);
    }
}

/* SlurmctldDebug / SlurmdDebug: Slurm's level names in any case, printed
 * when not info and parsed back to the same; the daemons' log level of
 * each, and -v's debug over any. */
static void test_debug_levels(void **state)
{
    static const struct {
        const char *val;
        enum conf_debug level;
        const char *printed; /* NULL: not printed (the default) */
        enum log_level log;
    } cases[] = {
        {"quiet", CONF_DEBUG_QUIET, "quiet", LOG_LEVEL_ERROR},
        {"fatal", CONF_DEBUG_FATAL, "fatal", LOG_LEVEL_ERROR},
        {"Error", CONF_DEBUG_ERROR, "error", LOG_LEVEL_WARN},
        {"info", CONF_DEBUG_INFO, NULL, LOG_LEVEL_INFO},
        {"verbose", CONF_DEBUG_VERBOSE, "verbose", LOG_LEVEL_INFO},
        {"debug", CONF_DEBUG_DEBUG, "debug", LOG_LEVEL_DEBUG},
        {"DEBUG3", CONF_DEBUG_DEBUG3, "debug3", LOG_LEVEL_DEBUG},
        {"debug5", CONF_DEBUG_DEBUG5, "debug5", LOG_LEVEL_DEBUG},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256], want[64], *out;
        struct conf_diag d;
        struct conf *c, *again;

        snprintf(text, sizeof(text),
                 HEAD "SlurmctldDebug=%s\nSlurmdDebug=%s\nNodeName=n1\n"
                      "PartitionName=p Nodes=n1\n",
                 cases[i].val, cases[i].val);
        c = parse(text, &d);
        assert_non_null(c);
        assert_int_equal(c->slurmctld_debug, cases[i].level);
        assert_int_equal(c->slurmd_debug, cases[i].level);
        assert_int_equal(daemon_log_level(c->slurmd_debug, false),
                         cases[i].log);
        assert_int_equal(daemon_log_level(c->slurmd_debug, true),
                         LOG_LEVEL_DEBUG);
        out = print_to_string(c);
        if (cases[i].printed == NULL) {
            assert_null(strstr(out, "Debug="));
        } else {
            snprintf(want, sizeof(want), "\nSlurmdDebug=%s\n",
                     cases[i].printed);
            assert_non_null(strstr(out, want));
        }
        conf_diag_free(&d);
        again = parse(out, &d);
        assert_non_null(again);
        assert_int_equal(again->slurmctld_debug, cases[i].level);
        assert_int_equal(again->slurmd_debug, cases[i].level);
        free(out);
        conf_destroy(c);
        conf_destroy(again);
        conf_diag_free(&d);
    }
}

/* scontrol setdebug's word: a level's name in any case or Slurm's number
 * for it; anything else refused with the levels. */
static void test_debug_parse(void **state)
{
    static const char *const names[] = {"quiet",   "fatal", "error",  "info",
                                        "verbose", "debug", "debug2", "debug3",
                                        "debug4",  "debug5"};
    enum conf_debug d;
    struct err e;
    char num[12];

    (void)state;
    for (int i = 0; i < 10; i++) {
        snprintf(num, sizeof(num), "%d", i);
        assert_int_equal(conf_debug_parse(num, &d, &e), 0);
        assert_string_equal(conf_debug_name(d), names[i]);
        assert_int_equal(conf_debug_parse(names[i], &d, &e), 0);
        assert_string_equal(conf_debug_name(d), names[i]);
    }
    assert_int_equal(conf_debug_parse("Debug2", &d, &e), 0);
    assert_int_equal(d, CONF_DEBUG_DEBUG2);
    assert_int_equal(conf_debug_parse("info", &d, &e), 0);
    assert_int_equal(daemon_log_level(d, false), LOG_LEVEL_INFO);
    static const char *const bad[] = {"loud", "10", "-1", "", "debug6", " 3"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_int_equal(conf_debug_parse(bad[i], &d, &e), -1);
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(e.text, "invalid debug level"));
        assert_non_null(strstr(e.text, "quiet, fatal, error, info, verbose"));
        assert_non_null(strstr(e.text, "(or 0-9)"));
    }
}

/* LaunchParameters and InteractiveStepOptions: salloc's default command;
 * Slurm's other launch values are kept, not refused; the print parses
 * back to the same. */
static void test_launch_params(void **state)
{
    struct conf_diag d;
    struct conf *c = parse(HEAD "NodeName=n1\nPartitionName=p Nodes=n1\n", &d);
    struct conf *again;
    char *text;

    (void)state;
    assert_non_null(c);
    assert_false(c->use_interactive_step);
    assert_string_equal(conf_interactive_step_options(c),
                        "--interactive --preserve-env --pty $SHELL");
    text = print_to_string(c);
    assert_null(strstr(text, "LaunchParameters"));
    assert_null(strstr(text, "InteractiveStepOptions"));
    free(text);
    conf_destroy(c);
    conf_diag_free(&d);

    c = parse(HEAD "LaunchParameters=enable_nss_slurm,use_interactive_step,"
                   "lustre_no_flush\n"
                   "InteractiveStepOptions=\"--interactive --pty "
                   "/bin/bash -l\"\n"
                   "NodeName=n1\nPartitionName=p Nodes=n1\n",
              &d);
    assert_non_null(c);
    assert_int_equal(d.n_errors, 0);
    assert_null(diag_find(&d, "LaunchParameters"));
    assert_true(c->use_interactive_step);
    assert_string_equal(c->launch_parameters,
                        "enable_nss_slurm,use_interactive_step,"
                        "lustre_no_flush");
    assert_string_equal(conf_interactive_step_options(c),
                        "--interactive --pty /bin/bash -l");
    text = print_to_string(c);
    conf_diag_free(&d);
    again = parse(text, &d);
    assert_non_null(again);
    assert_true(again->use_interactive_step);
    assert_string_equal(again->interactive_step_options,
                        "--interactive --pty /bin/bash -l");
    free(text);
    conf_destroy(again);
    conf_destroy(c);
    conf_diag_free(&d);

    c = parse(HEAD "LaunchParameters=test_exec\n"
                   "NodeName=n1\nPartitionName=p Nodes=n1\n",
              &d);
    assert_non_null(c);
    assert_false(c->use_interactive_step);
    conf_destroy(c);
    conf_diag_free(&d);

    /* an old slurm.conf's SallocDefaultCommand: said what replaces it */
    c = parse(HEAD "SallocDefaultCommand=\"srun -n1 -N1 --pty $SHELL\"\n"
                   "NodeName=n1\nPartitionName=p Nodes=n1\n",
              &d);
    assert_non_null(c);
    assert_non_null(diag_find(&d, "use LaunchParameters=use_interactive_step"));
    assert_false(c->use_interactive_step);
    conf_destroy(c);
    conf_diag_free(&d);
}

static void test_json(void **state)
{
    struct conf_diag d;
    struct conf *c = parse(seed, &d);
    json_t *o, *parts;

    (void)state;
    assert_non_null(c);
    o = conf_to_json(c);
    assert_string_equal(json_string_value(json_object_get(o, "cluster_name")),
                        "quant-cluster");
    assert_string_equal(
        json_string_value(json_object_get(o, "default_partition")), "backtest");
    parts = json_object_get(o, "partitions");
    assert_int_equal(json_array_size(parts), 3);
    assert_true(
        json_is_null(json_object_get(json_array_get(parts, 0), "max_time_s")));
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(parts, 1), "max_time_s")),
                     259200);
    assert_int_equal(
        json_integer_value(json_object_get(
            json_array_get(json_object_get(o, "nodes"), 0), "gpus")),
        4);
    json_decref(o);
    conf_destroy(c);
    conf_diag_free(&d);
}

/* A temporary directory with files: include tests and gres.conf. */
static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_include(void **state)
{
    char path[256];
    struct conf_diag d;
    struct err e;
    struct conf *c;

    (void)state;
    write_file("main.conf", HEAD "Include nodes.inc\n"
                                 "PartitionName=p Nodes=n[1-2] Default=YES\n");
    write_file("nodes.inc", "NodeName=n[1-2] CPUs=2\n");
    write_file("loop.conf", HEAD "Include loop2.inc\n");
    write_file("loop2.inc", "Include loop.conf\n");
    conf_diag_init(&d);
    snprintf(path, sizeof(path), "%s/main.conf", tmpdir);
    c = conf_load(path, &d, &e);
    assert_non_null(c);
    assert_int_equal(c->nodes[1].cpus, 2);
    assert_non_null(strstr(c->nodes[1].loc.file, "nodes.inc"));
    conf_destroy(c);
    snprintf(path, sizeof(path), "%s/loop.conf", tmpdir);
    assert_null(conf_load(path, &d, &e));
    assert_non_null(strstr(e.text, "include cycle"));
    snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
    errno = 0;
    assert_null(conf_load(path, &d, &e));
    assert_int_equal(errno, ENOENT);
    conf_diag_free(&d);
}

static void test_gresconf(void **state)
{
    static const char text[] =
        "AutoDetect=off\n"
        "NodeName=g[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-3] "
        "Cores=0-7\n"
        "NodeName=g3 Name=gpu Count=2\n"
        "Name=shard Count=8\n";
    struct conf_diag d;
    struct err e;
    struct gresconf *g;

    (void)state;
    conf_diag_init(&d);
    g = gresconf_parse_string(text, "gres.conf", "g2", &d, &e);
    assert_non_null(g);
    assert_int_equal(g->n, 2);
    assert_string_equal(g->recs[0].type, "h200");
    assert_int_equal(g->recs[0].n_files, 4);
    assert_string_equal(g->recs[0].files[3], "/dev/nvidia3");
    assert_int_equal(gresconf_count(g, "gpu", NULL), 4);
    assert_int_equal(gresconf_count(g, "shard", NULL), 8);
    gresconf_destroy(g);
    g = gresconf_parse_string(text, "gres.conf", "g3", &d, &e);
    assert_non_null(g);
    assert_int_equal(gresconf_count(g, "gpu", NULL), 2);
    gresconf_destroy(g);
    assert_null(gresconf_parse_string("Name=gpu File=/dev/nvidia[0-1] "
                                      "Count=4\n",
                                      "gres.conf", "x", &d, &e));
    assert_non_null(strstr(e.text, "gres.conf:1:1: Count=4 but File="));
    assert_null(gresconf_parse_string("Name=gpu File=/dev/nvidia[3-1]\n",
                                      "gres.conf", NULL, &d, &e));
    assert_null(gresconf_parse_string("Type=h200 Count=1\n", "gres.conf", NULL,
                                      &d, &e));
    conf_diag_free(&d);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sluice-test-conf.XXXXXX");
    return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

/* A configuration's diagnostics print as FILE:LINE:COL; a doctor's
 * finding as WHERE, with its fix and the name of its check. */
static void test_diag_format(void **state)
{
    struct conf_diag d;
    char buf[256];

    (void)state;
    conf_diag_init(&d);
    conf_diag_add(&d, CONF_ERROR, "a.conf", 3, 7, "bad %s", "value");
    conf_diag_add_fix(&d, CONF_WARNING, "node node04", "gpus", "restart it",
                      "%d GPUs missing", 4);
    conf_diag_add_fix(&d, CONF_ERROR, "controller", "clock", NULL, "late");
    assert_int_equal(d.n_errors, 2);
    assert_int_equal(d.n_warnings, 1);
    assert_string_equal(conf_diag_format(&d.items[0], buf, sizeof(buf)),
                        "a.conf:3:7: error: bad value");
    assert_string_equal(
        conf_diag_format(&d.items[1], buf, sizeof(buf)),
        "node node04: warning: 4 GPUs missing; fix: restart it [gpus]");
    assert_string_equal(conf_diag_format(&d.items[2], buf, sizeof(buf)),
                        "controller: error: late [clock]");
    /* cut short, never overrun */
    assert_string_equal(conf_diag_format(&d.items[1], buf, 20),
                        "node node04: warnin");
    conf_diag_free(&d);
    assert_int_equal(d.n, 0);
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_values),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_priority_shorthand),
        cmocka_unit_test(test_default_lines),
        cmocka_unit_test(test_lexer),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_no_preempt_warning_when_overlapping),
        cmocka_unit_test(test_suspend_gang_clean),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_include),
        cmocka_unit_test(test_gresconf),
        cmocka_unit_test(test_launch_params),
        cmocka_unit_test(test_daemon_nice),
        cmocka_unit_test(test_debug_levels),
        cmocka_unit_test(test_debug_parse),
        cmocka_unit_test(test_diag_format),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
