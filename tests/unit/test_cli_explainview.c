/*
 * sluice explain's text (src/cli/explainview.c): an EXPLAIN object as the
 * controller sends it, line by line; and a reply missing every field still
 * prints (bad input from the wire never crashes the CLI).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/explainview.h"

static char *render(const char *json, time_t now)
{
    json_error_t jerr;
    json_t *o = json_loads(json, 0, &jerr);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    if (o == NULL)
        fail_msg("bad test JSON: %s", jerr.text);
    explainview_print(fp, o, now);
    fclose(fp);
    json_decref(o);
    return buf;
}

static const char pending[] =
    "{\"job_id\": 4, \"name\": \"train\", \"user_name\": \"li\","
    " \"job_state\": \"PENDING\", \"state_reason\": \"Priority\","
    " \"partition\": \"gpu\", \"num_nodes\": 1, \"cpus_per_node\": 1,"
    " \"mem_per_node_mib\": 0, \"gpus_per_node\": 1, \"time_limit_s\": 10800,"
    " \"held\": null, \"begin_time\": null, \"partition_state\": \"UP\","
    " \"limit\": null, \"backfill\": true, \"estimated_start\": null,"
    " \"next_pass\": {\"would_start\": false, \"reason\": \"Priority\","
    "   \"node_list\": null},"
    " \"nodes\": ["
    "  {\"name\": \"node01\", \"state\": \"MIXED\", \"reason\": null,"
    "   \"status\": \"busy\", \"lacks\": {\"cpus\": 0, \"mem_mib\": 0, "
    "\"gpus\": 1},"
    "   \"free\": {\"cpus\": 7, \"mem_mib\": 16000, \"gpus\": 0},"
    "   \"until\": 8200, \"until_job\": 1},"
    "  {\"name\": \"node02\", \"state\": \"DRAIN\", \"reason\": \"maint\","
    "   \"status\": \"drained\"},"
    "  {\"name\": \"node03\", \"state\": \"IDLE\", \"reason\": null,"
    "   \"status\": \"excluded\"},"
    "  {\"name\": \"node04\", \"state\": \"IDLE\", \"reason\": null,"
    "   \"status\": \"busy\", \"lacks\": {\"cpus\": 0, \"mem_mib\": 0, "
    "\"gpus\": 2},"
    "   \"free\": {\"cpus\": 8, \"mem_mib\": 0, \"gpus\": 0},"
    "   \"no_time_limit_job\": 9}],"
    " \"queue\": {\"rank\": 2, \"ahead_count\": 1, \"ahead\": [{\"job_id\": 3,"
    "   \"priority\": 1000, \"user_name\": \"wu\", \"reason\": "
    "\"Resources\"}]},"
    " \"suggestions\": ["
    "  {\"kind\": \"time_limit\", \"time_limit_s\": 3540, \"would_start\": "
    "true},"
    "  {\"kind\": \"partition\", \"partition\": \"dev\", \"node_list\": "
    "\"node05\"},"
    "  {\"kind\": \"resume_node\", \"node\": \"node02\", \"state\": \"DRAIN\","
    "   \"reason\": \"maint\"}]}";

static void test_pending(void **state)
{
    char *t = render(pending, 5000);
    static const char *const want[] = {
        "Job 4 (train, user li) is PENDING in partition gpu: Priority\n",
        "  asks for 1 node with 1 CPU(s), 1 GPU; time limit 03:00:00\n",
        "    node01     busy: lacks 1 GPU (free 7 CPUs, 16000M memory); "
        "enough free ",
        " (in 53:20) when job 1 ends\n",
        "    node02     DRAIN: maint\n",
        "    node03     excluded by -x/--exclude\n",
        "    node04     busy: lacks 2 GPUs (free 8 CPUs); not before job 9 "
        "ends (it has no time limit)\n",
        "  queue: number 2 in its partition; ahead: job 3 (priority 1000, "
        "Resources)\n",
        "  estimated start: no estimate (no backfill reservation for it)\n",
        "    - with a time limit of 00:59:00 or less it would start now: "
        "scontrol update JobId=4 TimeLimit=00:59:00\n",
        "    - partition dev has room now (on node05): scontrol update "
        "JobId=4 Partition=dev\n",
        "    - it would start on node02 if that node were resumed (DRAIN: "
        "maint)\n",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
        if (strstr(t, want[i]) == NULL)
            fail_msg("missing \"%s\" in:\n%s", want[i], t);
    free(t);
}

static void test_running_and_finished(void **state)
{
    char *t = render("{\"job_id\": 1, \"name\": \"a\", \"user_name\": \"li\","
                     " \"job_state\": \"RUNNING\", \"partition\": \"gpu\","
                     " \"num_nodes\": 2, \"cpus_per_node\": 4,"
                     " \"time_limit_s\": null, \"node_list\": \"node[01-02]\","
                     " \"start_time\": 100, \"end_time_est\": null}",
                     200);

    (void)state;
    assert_non_null(strstr(t, "is RUNNING in partition gpu\n"));
    assert_non_null(strstr(t, "asks for 2 nodes with 4 CPU(s) each; time "
                              "limit UNLIMITED\n"));
    assert_non_null(strstr(t, "  on node[01-02] since "));
    free(t);
    t = render("{\"job_id\": 2, \"name\": \"b\", \"user_name\": \"li\","
               " \"job_state\": \"FAILED\", \"partition\": \"gpu\","
               " \"node_list\": \"node01\", \"start_time\": 100,"
               " \"end_time\": 150, \"exit_code\": {\"return_code\": 3,"
               " \"signal\": 0}}",
               200);
    assert_non_null(strstr(t, "is FAILED in partition gpu\n"));
    assert_non_null(strstr(t, "(exit code 3:0)\n"));
    free(t);
}

static void test_garbage(void **state)
{
    char *t;

    (void)state;
    t = render("{}", 0);
    assert_non_null(strstr(t, "Job 0 (?, user ?) is ? in partition ?"));
    free(t);
    t = render("{\"job_state\": \"PENDING\", \"nodes\": [{}, 3],"
               " \"suggestions\": [{}, {\"kind\": \"partition\"}],"
               " \"queue\": {\"ahead_count\": 5, \"ahead\": [{}]},"
               " \"partition_limit\": {}, \"limit\": {}}",
               0);
    assert_non_null(strstr(t, "partition ? has room now"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending),
        cmocka_unit_test(test_running_and_finished),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
