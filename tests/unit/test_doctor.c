/*
 * sluice doctor's judgement (src/common/doctor.c, doctor_policy.c) on
 * tables of facts: each row is the controller's replies cut down to what
 * one check reads, the findings it must give (severity, where, check, in
 * order) and a piece of text one of them must say.  Facts a check does
 * not find skip it, so an empty object has no finding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/doctor.h"

struct row {
    const char *name;
    const char *facts; /* JSON */
    const char *want;  /* "E node node04 gpus; W partition prod time_limit" */
    const char *text;  /* in some finding's printed line, or NULL */
};

/* The seed's three partitions, disjoint. */
#define SEED_PARTS                                                             \
    "\"partitions\": ["                                                        \
    "{\"name\": \"prod\", \"nodes\": \"node01\", \"priority_tier\": 100,"      \
    " \"priority_job_factor\": 100, \"max_time_s\": null},"                    \
    "{\"name\": \"backtest\", \"nodes\": \"node[02-03]\","                     \
    " \"priority_tier\": 50, \"priority_job_factor\": 50,"                     \
    " \"max_time_s\": 259200},"                                                \
    "{\"name\": \"dev\", \"nodes\": \"node04\", \"priority_tier\": 10,"        \
    " \"priority_job_factor\": 10, \"max_time_s\": 86400}]"

#define NODE_NO_GPUS                                                           \
    "{\"name\": \"node04\", \"state\": \"INVALID\", \"gres\": \"gpu:4\","      \
    " \"gres_reported\": \"\", \"gres_note\": \"no gres.conf and NVML not "    \
    "found: install the NVIDIA driver or add gres.conf\", \"reason\": "        \
    "\"gres/gpu count reported 0 < configured 4 (...)\"}"

static const struct row rows[] = {
    {"nothing known, nothing found", "{}", "", NULL},

    /* --- gpus ---------------------------------------------------------- */
    {"a node reporting no GPUs, and the jobs that wait only for it",
     "{\"nodes\": [" NODE_NO_GPUS ", {\"name\": \"node03\", \"state\": "
     "\"IDLE\", \"gres\": \"gpu:4\", \"gres_reported\": \"gpu:4\"}],"
     " \"jobs\": ["
     "{\"job_id\": 12, \"job_state\": \"PENDING\", \"state_reason\": "
     "\"ReqNodeNotAvail, UnavailableNodes:node04\"},"
     "{\"job_id\": 13, \"job_state\": \"PENDING\", \"state_reason\": "
     "\"ReqNodeNotAvail, UnavailableNodes:node[03-04]\"},"
     "{\"job_id\": 14, \"job_state\": \"PENDING\", \"state_reason\": "
     "\"Resources\"}]}",
     "E node node04 gpus",
     "node node04: error: Gres=gpu:4 is configured, but its sluiced reports 0 "
     "GPUs (no gres.conf and NVML not found: install the NVIDIA driver or add "
     "gres.conf); the node is INVALID: no job starts there; 1 pending job "
     "waits only for it: 12; fix: make the GPUs visible"},
    {"fewer GPUs reported, not (yet) INVALID",
     "{\"nodes\": [{\"name\": \"n1\", \"state\": \"IDLE\", \"gres\": "
     "\"gpu:h200:8\", \"gres_reported\": \"gpu:h200:6\"}]}",
     "E node n1 gpus", "reports 6 GPUs"},
    {"more GPUs reported than configured",
     "{\"nodes\": [{\"name\": \"n1\", \"gres\": \"gpu:4\", "
     "\"gres_reported\": \"gpu:8\"}]}",
     "W node n1 gpus", "only 4 are scheduled"},
    {"as configured, or not registered yet",
     "{\"nodes\": [{\"name\": \"n1\", \"gres\": \"gpu:4\", "
     "\"gres_reported\": \"gpu:4\"}, {\"name\": \"n2\", \"state\": "
     "\"UNKNOWN\", \"gres\": \"gpu:4\", \"gres_reported\": null}]}",
     "", NULL},

    /* --- host names ------------------------------------------------------ */
    {"the seed's pitfall: node02 served from host node2",
     "{\"nodes\": [{\"name\": \"node02\", \"node_hostname\": \"node02\", "
     "\"hostname_reported\": \"node2\"}]}",
     "W node node02 hostname",
     "its sluiced runs on host \"node2\", which is not its NodeName"},
    {"a host name that differs from NodeHostname",
     "{\"nodes\": [{\"name\": \"n1\", \"node_hostname\": \"gpu-a\", "
     "\"hostname_reported\": \"gpu-b\"}]}",
     "W node n1 hostname", "neither its NodeName nor its NodeHostname (gpu-a)"},
    {"host names that match, with a domain or another case",
     "{\"nodes\": [{\"name\": \"node01\", \"node_hostname\": \"node01\", "
     "\"hostname_reported\": \"node01.quant.example\"},"
     "{\"name\": \"node02\", \"node_hostname\": \"VM\", "
     "\"hostname_reported\": \"vm.local\"},"
     "{\"name\": \"node03\", \"hostname_reported\": \"NODE03\"},"
     "{\"name\": \"node04\", \"hostname_reported\": null}]}",
     "", NULL},

    /* --- GPU fence ---------------------------------------------------------- */
    {"GPU isolation off, on, nothing to fence",
     "{\"nodes\": [{\"name\": \"n1\", \"gpu_fence\": {\"state\": \"off\", "
     "\"reason\": \"ConstrainDevices=no in cgroup.conf: every job can open "
     "all 4 GPUs of the node, not only its own\"}},"
     "{\"name\": \"n2\", \"gpu_fence\": {\"state\": \"on\", \"reason\": "
     "\"\"}}, {\"name\": \"n3\", \"gpu_fence\": {\"state\": \"none\"}}]}",
     "W node n1 gpu_fence",
     "GPU isolation is not in effect: ConstrainDevices=no in cgroup.conf"},

    /* --- clocks --------------------------------------------------------------- */
    {"clocks within a few seconds, behind, far ahead; this host",
     "{\"now\": 1000, \"client_now\": 1010, \"nodes\": ["
     "{\"name\": \"n1\", \"clock_offset_s\": 3},"
     "{\"name\": \"n2\", \"clock_offset_s\": -20},"
     "{\"name\": \"n3\", \"clock_offset_s\": 45},"
     "{\"name\": \"n4\", \"clock_offset_s\": null}]}",
     "W this host clock; W node n2 clock; E node n3 clock",
     "node n3: error: its clock is 45 s ahead of the controller's"},
    {"the thresholds themselves",
     "{\"nodes\": [{\"name\": \"n1\", \"clock_offset_s\": 5},"
     "{\"name\": \"n2\", \"clock_offset_s\": -30}]}",
     "E node n2 clock", "30 s behind"},

    /* --- refused credentials -------------------------------------------------- */
    {"refused credentials from a node that is not connected, and a stranger",
     "{\"now\": 500, \"nodes\": ["
     "{\"name\": \"node03\", \"addr\": \"10.0.0.3\", \"connected\": false},"
     "{\"name\": \"node04\", \"addr\": \"10.0.0.4\", \"connected\": true}],"
     " \"auth_refused\": ["
     "{\"peer\": \"10.0.0.3\", \"count\": 40, \"first\": 100, \"last\": 490,"
     " \"reason\": \"credential MAC does not verify (signed with a different "
     "key?)\"},"
     "{\"peer\": \"192.168.7.7\", \"count\": 1, \"first\": 200, \"last\": "
     "200, \"reason\": \"auth/munge: credential replayed\"}]}",
     "E peer 10.0.0.3 (node03) auth; W peer 192.168.7.7 auth",
     "peer 10.0.0.3 (node03): error: 40 credentials refused, the last 10 s "
     "ago: credential MAC does not verify (signed with a different key?); a "
     "node at this address is not connected; fix: give node03 the cluster's "
     "key"},
    {"refused from the address of connected nodes (a stray daemon)",
     "{\"now\": 500, \"nodes\": ["
     "{\"name\": \"node01\", \"addr\": \"127.0.0.1\", \"connected\": true},"
     "{\"name\": \"node02\", \"addr\": \"127.0.0.1\", \"connected\": true}],"
     " \"auth_refused\": [{\"peer\": \"127.0.0.1\", \"count\": 3, \"last\": "
     "499, \"reason\": \"x\"}]}",
     "W peer 127.0.0.1 (node[01-02]) auth", "3 credentials refused"},

    /* --- the state directory ----------------------------------------------- */
    {"a state directory that takes no writes",
     "{\"state\": {\"dir\": \"/s\", \"writable\": false, \"free_bytes\": 0,"
     " \"min_free_bytes\": 67108864, \"reason\": \"StateSaveLocation /s is "
     "full (0 KiB free, 64 MiB needed): submissions and other changes are "
     "refused until space is freed\", \"mode\": \"0711\", \"owner_uid\": 0, "
     "\"controller_uid\": 0, \"db_mode\": \"0600\", \"db_owner_uid\": 0}}",
     "E StateSaveLocation /s state_dir", "/s is full (0 KiB free"},
    {"a state directory open to others, not the controller's, its database "
     "readable",
     "{\"state\": {\"dir\": \"/s\", \"writable\": true, \"free_bytes\": "
     "10737418240, \"min_free_bytes\": 67108864, \"mode\": \"0777\", "
     "\"owner_uid\": 1000, \"controller_uid\": 0, \"db_mode\": \"0644\", "
     "\"db_owner_uid\": 0}}",
     "E StateSaveLocation /s state_dir; E StateSaveLocation /s state_dir; "
     "E StateSaveLocation /s state_dir",
     "writable by group or others (mode 0777)"},
    {"little room left, and no room watched",
     "{\"state\": {\"dir\": \"/s\", \"writable\": true, \"free_bytes\": "
     "134217728, \"min_free_bytes\": 67108864, \"mode\": \"0711\"}}",
     "W StateSaveLocation /s state_dir",
     "only 128 MiB free: submissions and every other change are refused "
     "below 64 MiB"},
    {"SluiceStateMinFree=0",
     "{\"state\": {\"dir\": \"/s\", \"writable\": true, \"free_bytes\": "
     "134217728, \"min_free_bytes\": 0}}",
     "W StateSaveLocation /s state_dir", "SluiceStateMinFree=0"},
    {"a healthy state directory",
     "{\"state\": {\"dir\": \"/s\", \"writable\": true, \"free_bytes\": "
     "10737418240, \"min_free_bytes\": 67108864, \"mode\": \"0711\", "
     "\"owner_uid\": 0, \"controller_uid\": 0, \"db_mode\": \"0600\", "
     "\"db_owner_uid\": 0}}",
     "", NULL},

    /* --- preemption between partitions --------------------------------- */
    {"the seed: partition_prio over disjoint partitions",
     "{\"config\": {\"PreemptType\": \"preempt/partition_prio\", "
     "\"PreemptMode\": \"REQUEUE\"}, " SEED_PARTS "}",
     "W partition prod preempt_reach; W partition backtest preempt_reach",
     "PreemptType=preempt/partition_prio, but prod (PriorityTier 100, "
     "node01) shares no node with a partition of a lower tier (backtest "
     "(node[02-03]), dev (node04)): its jobs can never preempt theirs"},
    {"prod over every node reaches the others; backtest still cannot",
     "{\"config\": {\"PreemptType\": \"preempt/partition_prio\"}, "
     "\"partitions\": [{\"name\": \"prod\", \"nodes\": \"node[01-04]\", "
     "\"priority_tier\": 100}, {\"name\": \"backtest\", \"nodes\": "
     "\"node[02-03]\", \"priority_tier\": 50}, {\"name\": \"dev\", \"nodes\": "
     "\"node04\", \"priority_tier\": 10}]}",
     "W partition backtest preempt_reach", "(dev (node04))"},
    {"PreemptMode=OFF, or preemption by QOS: nothing to say",
     "{\"config\": {\"PreemptType\": \"preempt/partition_prio\", "
     "\"PreemptMode\": \"OFF\"}, " SEED_PARTS "}",
     "", NULL},
    {"preempt/qos",
     "{\"config\": {\"PreemptType\": \"preempt/qos\"}, " SEED_PARTS "}", "",
     NULL},

    /* --- priority weights ---------------------------------------------- */
    {"the seed's QOS priorities with PriorityWeightQOS=0",
     "{\"config\": {\"PriorityType\": \"priority/multifactor\", "
     "\"PriorityWeightQOS\": \"0\", \"PriorityWeightPartition\": \"1000\"}, "
     "\"qos\": [{\"name\": \"normal\", \"priority\": 0}, {\"name\": "
     "\"prod_qos\", \"priority\": 1000}, {\"name\": \"backtest_qos\", "
     "\"priority\": 500}, {\"name\": \"dev_qos\", \"priority\": "
     "100}], " SEED_PARTS "}",
     "W PriorityWeightQOS prio_weights",
     "PriorityWeightQOS: warning: QOS priorities differ (prod_qos 1000, "
     "backtest_qos 500, dev_qos 100, normal 0), but PriorityWeightQOS=0: a "
     "job's QOS does not change its priority"},
    {"QOS weighted; equal QOS priorities with weight 0",
     "{\"config\": {\"PriorityType\": \"priority/multifactor\", "
     "\"PriorityWeightQOS\": \"2000\"}, \"qos\": [{\"name\": \"a\", "
     "\"priority\": 0}, {\"name\": \"b\", \"priority\": 10}]}",
     "", NULL},
    {"partitions' factors and users' fair-share with weights 0",
     "{\"config\": {\"PriorityType\": \"priority/multifactor\", "
     "\"PriorityWeightPartition\": \"0\", \"PriorityWeightFairshare\": "
     "\"0\"}, " SEED_PARTS ", \"shares\": [{\"account\": \"root\", \"user\": "
     "null, \"fairshare\": null}, {\"account\": \"a\", \"user\": \"alice\", "
     "\"fairshare\": 0.9}, {\"account\": \"a\", \"user\": \"bob\", "
     "\"fairshare\": 0.25}]}",
     "W PriorityWeightPartition prio_weights; "
     "W PriorityWeightFairshare prio_weights",
     "users' fair-share factors differ (alice 0.900, bob 0.250)"},
    {"priority/basic with weights",
     "{\"config\": {\"PriorityType\": \"priority/basic\", "
     "\"PriorityWeightAge\": \"1000\", \"PriorityWeightQOS\": \"0\"}}",
     "W PriorityType prio_weights", "ignores PriorityWeightAge=1000"},

    /* --- time limits ---------------------------------------------------- */
    {"running without a time limit where MaxTime=INFINITE",
     "{" SEED_PARTS ", \"jobs\": ["
     "{\"job_id\": 7, \"partition\": \"prod\", \"job_state\": \"RUNNING\", "
     "\"time_limit_s\": null},"
     "{\"job_id\": 8, \"partition\": \"prod\", \"job_state\": \"RUNNING\", "
     "\"time_limit_s\": 3600},"
     "{\"job_id\": 9, \"partition\": \"prod\", \"job_state\": \"PENDING\", "
     "\"time_limit_s\": null},"
     "{\"job_id\": 10, \"partition\": \"dev\", \"job_state\": \"RUNNING\", "
     "\"time_limit_s\": 60}]}",
     "W partition prod time_limit",
     "1 running job without a time limit (7), in a partition with "
     "MaxTime=INFINITE"},

    /* --- users preempted too often ------------------------------------------- */
    {"a user preempted in more runs than report_share",
     "{\"preempt_window_s\": 604800, \"preemptions\": {\"share\": 0.3, "
     "\"users\": [{\"name\": \"alice\", \"runs\": 3, \"preempted\": 2, "
     "\"preempted_share\": 0.6667, \"gpu_hours_lost\": 1.5, \"flagged\": "
     "true}, {\"name\": \"bob\", \"runs\": 4, \"preempted\": 1, "
     "\"preempted_share\": 0.25, \"gpu_hours_lost\": 0.1, \"flagged\": "
     "false}]}}",
     "W user alice preempted_users",
     "user alice: warning: preempted in 2 of 3 runs (67%) in the last 7 "
     "days, more than PreemptParameters report_share=0.30 allows; 1.50 "
     "GPU-hours lost"},
};

/* "E where check; W where check" of d. */
static char *summary(const struct conf_diag *d)
{
    char *s = strdup(""), *t;

    for (size_t i = 0; i < d->n; i++) {
        const struct conf_diag_item *it = &d->items[i];
        if (asprintf(&t, "%s%s%c %s %s", s, i ? "; " : "",
                     it->severity == CONF_ERROR ? 'E' : 'W', it->file,
                     it->check ? it->check : "-") < 0)
            fail_msg("out of memory");
        free(s);
        s = t;
    }
    return s;
}

static bool says(const struct conf_diag *d, const char *text)
{
    char buf[4096];

    for (size_t i = 0; i < d->n; i++)
        if (strstr(conf_diag_format(&d->items[i], buf, sizeof(buf)), text))
            return true;
    return false;
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct row *r = &rows[i];
        json_error_t jerr;
        json_t *facts = json_loads(r->facts, 0, &jerr);
        struct conf_diag d;
        char *got;

        if (facts == NULL)
            fail_msg("%s: bad facts: %s", r->name, jerr.text);
        conf_diag_init(&d);
        doctor_judge(facts, &d);
        got = summary(&d);
        if (strcmp(got, r->want) != 0)
            fail_msg("%s:\n  got:  %s\n  want: %s", r->name, got, r->want);
        if (r->text != NULL && !says(&d, r->text)) {
            char buf[4096];
            for (size_t k = 0; k < d.n; k++)
                print_message("  %s\n",
                              conf_diag_format(&d.items[k], buf, sizeof(buf)));
            fail_msg("%s: no finding says \"%s\"", r->name, r->text);
        }
        for (size_t k = 0; k < d.n; k++)
            if (d.items[k].fix == NULL)
                fail_msg("%s: a finding without a fix", r->name);
        free(got);
        conf_diag_free(&d);
        json_decref(facts);
    }
}

/* Every check named in a finding is one of doctor_checks. */
static void test_checks_named(void **state)
{
    size_t n = 0;

    (void)state;
    while (doctor_checks[n] != NULL)
        n++;
    assert_int_equal(n, 10);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *w = rows[i].want;
        for (const char *p = w; *p != '\0';) {
            const char *end = strchr(p, ';'), *sp;
            size_t len = end ? (size_t)(end - p) : strlen(p);
            bool found = false;
            for (sp = p + len; sp > p && sp[-1] != ' '; sp--)
                ;
            for (size_t k = 0; k < n && !found; k++)
                found =
                    strlen(doctor_checks[k]) == (size_t)(p + len - sp) &&
                    strncmp(doctor_checks[k], sp, (size_t)(p + len - sp)) == 0;
            if (!found)
                fail_msg("%s: check \"%.*s\" is not in doctor_checks",
                         rows[i].name, (int)(p + len - sp), sp);
            p = end ? end + 2 : p + len;
        }
    }
}

/* --json: errors and warnings apart, each with its check, place, message
 * and fix; ok while there is no error. */
static void test_json(void **state)
{
    struct conf_diag d;
    json_t *o, *f;

    (void)state;
    conf_diag_init(&d);
    conf_diag_add_fix(&d, CONF_WARNING, "node n1", "clock", "run NTP",
                      "%d s ahead", 9);
    o = doctor_json(&d);
    assert_true(json_is_true(json_object_get(o, "ok")));
    assert_int_equal(json_array_size(json_object_get(o, "errors")), 0);
    f = json_array_get(json_object_get(o, "warnings"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "check")),
                        "clock");
    assert_string_equal(json_string_value(json_object_get(f, "where")),
                        "node n1");
    assert_string_equal(json_string_value(json_object_get(f, "message")),
                        "9 s ahead");
    assert_string_equal(json_string_value(json_object_get(f, "fix")),
                        "run NTP");
    json_decref(o);
    conf_diag_add_fix(&d, CONF_ERROR, "node n2", "gpus", "x", "y");
    o = doctor_json(&d);
    assert_true(json_is_false(json_object_get(o, "ok")));
    assert_int_equal(json_array_size(json_object_get(o, "errors")), 1);
    json_decref(o);
    conf_diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_checks_named),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
