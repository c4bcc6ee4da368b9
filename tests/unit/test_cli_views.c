/*
 * Golden tests of the layouts tools parse, from fixed JOB, NODE and PART
 * objects (docs/protocol.md): scontrol show job|node|partition, sinfo -N
 * -l, sinfo -O, squeue -O and the squeue letters added for Slurm.  Each
 * expected text is Slurm 22.05's layout for the same record, as its man
 * pages describe it: scontrol(1) "show" (the Key=Value records, the
 * first line at the margin, the others indented three spaces), sinfo(1)
 * "-N -l" ("%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E") and
 * "-O" ("type[:[.][size][suffix]]", 20 columns without a size), squeue(1)
 * "-O" (the same syntax) and "-o" (the letters).  Fields Sluice has no
 * notion of carry the value Slurm prints when they are unset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/fmt.h"
#include "cli/jobview.h"
#include "cli/nodeview.h"
#include "cli/showview.h"

#define NOW 1710072000 /* 2024-03-10T12:00:00 UTC */

static int setup(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    return 0;
}

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);

    if (o == NULL)
        fail_msg("bad fixture: %s", je.text);
    return o;
}

/* A pending GPU job waiting on two jobs, with a comment and a limit of
 * 90 minutes and 30 seconds (Slurm keeps whole minutes: 01:31:00). */
static const char *job_pending =
    "{\"job_id\": 42, \"name\": \"train\", \"user_id\": 1000,"
    " \"user_name\": \"alice\", \"group_id\": 0, \"priority\": 4294901758,"
    " \"nice\": 0, \"account\": \"ml\", \"qos\": \"normal\","
    " \"job_state\": \"PENDING\", \"state_reason\": \"Dependency\","
    " \"dependency\": \"afterok:40:41_2,afterany:39\","
    " \"time_limit_s\": 5430, \"submit_time\": 1710070000,"
    " \"eligible_time\": null, \"partition\": \"gpu\", \"nodes\": 2,"
    " \"ntasks\": 8, \"cpus_per_task\": 2, \"cpus\": 16, \"mem_mib\": 4096,"
    " \"tres_req_str\": \"cpu=16,mem=8G,node=2,billing=16,gres/gpu=4\","
    " \"tres_per_node\": \"gres:gpu:2\", \"argv\": [\"/home/alice/train.sh\"],"
    " \"work_dir\": \"/home/alice\", \"std_out\": \"log-%j.out\","
    " \"exit_code\": {\"return_code\": 0, \"signal\": 0},"
    " \"restart_count\": 0, \"comment\": \"sweep 3\"}";

static char *show(int kind, const char *text, bool oneliner, int detail)
{
    json_t *o = load(text);
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);

    if (kind == 'j')
        showview_job(fp, o, NOW, oneliner, detail);
    else if (kind == 'n')
        showview_node(fp, o, oneliner);
    else
        showview_part(fp, o, oneliner);
    fclose(fp);
    json_decref(o);
    return out;
}

static void test_show_job(void **state)
{
    char *out = show('j', job_pending, false, 1);

    (void)state;
    assert_string_equal(
        out, "JobId=42 JobName=train\n"
             "   UserId=alice(1000) GroupId=root(0) MCS_label=N/A\n"
             "   Priority=4294901758 Nice=0 Account=ml QOS=normal\n"
             "   JobState=PENDING Reason=Dependency "
             "Dependency=afterok:40(unfulfilled),afterok:41_2(unfulfilled),"
             "afterany:39(unfulfilled)\n"
             "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
             "   DerivedExitCode=0:0\n"
             "   RunTime=00:00:00 TimeLimit=01:31:00 TimeMin=N/A\n"
             "   SubmitTime=2024-03-10T11:26:40 EligibleTime=Unknown\n"
             "   AccrueTime=Unknown\n"
             "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
             "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=Unknown "
             "Scheduler=Main\n"
             "   Partition=gpu AllocNode:Sid=(null):0\n"
             "   ReqNodeList=(null) ExcNodeList=(null)\n"
             "   NodeList=(null)\n"
             "   NumNodes=2 NumCPUs=16 NumTasks=8 CPUs/Task=2 "
             "ReqB:S:C:T=0:0:*:*\n"
             "   TRES=cpu=16,mem=8G,node=2,billing=16,gres/gpu=4\n"
             "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
             "   MinCPUsNode=2 MinMemoryNode=4G MinTmpDiskNode=0\n"
             "   Features=(null) DelayBoot=00:00:00\n"
             "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
             "   Command=/home/alice/train.sh\n"
             "   WorkDir=/home/alice\n"
             "   Comment=sweep 3\n"
             "   StdErr=/home/alice/log-42.out\n"
             "   StdIn=/dev/null\n"
             "   StdOut=/home/alice/log-42.out\n"
             "   Power=\n"
             "   TresPerNode=gres:gpu:2\n"
             "   MailUser=alice MailType=NONE\n");
    free(out);
}

/* The keys the plan adds (wckey, deadline, time_min_s, tmp_mib,
 * constraint, exclusive, the node shape), a hold, a dependency that
 * failed, and -o. */
static void test_show_job_fields(void **state)
{
    char *out = show(
        'j',
        "{\"job_id\": 7, \"name\": \"x\", \"user_name\": \"bob\","
        " \"user_id\": 1001, \"group_id\": 0, \"priority\": 900,"
        " \"hold\": true, \"job_state\": \"PENDING\","
        " \"state_reason\": \"DependencyNeverSatisfied\","
        " \"state_description\": \"DependencyNeverSatisfied, job 5 failed\","
        " \"dependency\": \"afterok:5\", \"wckey\": \"submitit\","
        " \"deadline\": 1710158400, \"time_min_s\": 600, \"tmp_mib\": 2048,"
        " \"constraint\": \"a100&ib\", \"exclusive\": \"user\","
        " \"sockets_per_node\": 2, \"cores_per_socket\": 8,"
        " \"ntasks_per_node\": 4, \"requeue\": false, \"time_limit_s\": null,"
        " \"work_dir\": \"/w\", \"alloc\": \"salloc\", \"nodes\": 1}",
        true, 0);

    (void)state;
    assert_non_null(strstr(out, " Priority=0 Nice=0 Account=(null) "
                                "QOS=normal WCKey=submitit "));
    /* blanks of the long reason as '_', as scontrol prints them */
    assert_non_null(strstr(out,
                           " Reason=DependencyNeverSatisfied,_job_5_failed "
                           "Dependency=afterok:5(failed) Requeue=0 "));
    assert_non_null(strstr(out, " BatchFlag=0 "));
    assert_non_null(
        strstr(out, " TimeLimit=UNLIMITED TimeMin=00:10:00 SubmitTime="));
    assert_non_null(strstr(out, " Deadline=2024-03-11T12:00:00 "));
    assert_non_null(strstr(out, " ReqB:S:C:T=0:2:8:* "));
    assert_non_null(strstr(out, " Socks/Node=2 NtasksPerN:B:S:C=4:0:*:* "));
    assert_non_null(strstr(out, " MinCPUsNode=4 MinMemoryNode=0 "
                                "MinTmpDiskNode=2G Features=a100&ib "));
    assert_non_null(strstr(out, " OverSubscribe=USER "));
    assert_null(strstr(out, "StdOut=")); /* an allocation has no files */
    assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* -o */
    free(out);
}

static const char *node_drained =
    "{\"name\": \"node01\", \"state\": \"DRAIN\", \"reason\": \"bad fan\","
    " \"reason_user\": \"root\", \"reason_time\": 1710071000, \"cpus\": 16,"
    " \"cpus_alloc\": 0, \"mem_mib\": 64000, \"mem_alloc_mib\": 0,"
    " \"gres\": \"gpu:4\", \"gres_used\": \"gpu:0(IDX:N/A)\","
    " \"partitions\": [\"gpu\", \"all\"], \"addr\": \"10.0.0.1\","
    " \"boot_time\": 1710000000, \"last_seen\": 1710071900,"
    " \"tres\": \"cpu=16,mem=64000M,billing=16,gres/gpu=4\","
    " \"tres_used\": \"cpu=0\", \"features\": \"a100,ib\", \"weight\": 10,"
    " \"tmp_disk_mib\": 100000, \"sockets\": 2, \"cores_per_socket\": 8,"
    " \"threads_per_core\": 1, \"boards\": 1}";

static void test_show_node(void **state)
{
    char *out = show('n', node_drained, false, 0);

    (void)state;
    assert_string_equal(
        out, "NodeName=node01 Arch=x86_64 CoresPerSocket=8\n"
             "   CPUAlloc=0 CPUEfctv=16 CPUTot=16 CPULoad=N/A\n"
             "   AvailableFeatures=a100,ib\n"
             "   ActiveFeatures=a100,ib\n"
             "   Gres=gpu:4\n"
             "   GresUsed=gpu:0(IDX:N/A)\n"
             "   NodeAddr=10.0.0.1 NodeHostName=node01 Version=0.1.0\n"
             "   OS=Linux\n"
             "   RealMemory=64000 AllocMem=0 FreeMem=N/A Sockets=2 Boards=1\n"
             "   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=100000 Weight=10 "
             "Owner=N/A MCS_label=N/A\n"
             "   Partitions=gpu,all\n"
             "   BootTime=2024-03-09T16:00:00 "
             "SlurmdStartTime=2024-03-09T16:00:00\n"
             "   LastBusyTime=2024-03-09T16:00:00\n"
             "   CfgTRES=cpu=16,mem=64000M,billing=16,gres/gpu=4\n"
             "   AllocTRES=\n"
             "   CapWatts=n/a\n"
             "   CurrentWatts=0 AveWatts=0\n"
             "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
             "   Reason=bad fan [root@2024-03-10T11:43:20]\n");
    free(out);
}

static void test_show_part(void **state)
{
    char *out = show(
        'p',
        "{\"name\": \"gpu\", \"state\": \"UP\", \"default\": true,"
        " \"nodes\": \"node[01-04]\", \"total_nodes\": 4, \"total_cpus\": 64,"
        " \"max_time_s\": 86400, \"default_time_s\": null,"
        " \"priority_tier\": 1, \"priority_job_factor\": 1, \"qos\": null,"
        " \"max_nodes\": null, \"min_nodes\": 0, \"exclusive_user\": false}",
        false, 0);

    (void)state;
    assert_string_equal(
        out, "PartitionName=gpu\n"
             "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
             "   AllocNodes=ALL Default=YES QoS=N/A\n"
             "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO "
             "GraceTime=0 Hidden=NO\n"
             "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO "
             "MaxCPUsPerNode=UNLIMITED\n"
             "   Nodes=node[01-04]\n"
             "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO "
             "OverSubscribe=NO\n"
             "   OverTimeLimit=NONE PreemptMode=OFF\n"
             "   State=UP TotalCPUs=64 TotalNodes=4 SelectTypeParameters=NONE\n"
             "   JobDefaults=(null)\n"
             "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n");
    free(out);
}

static const char *header_of(char letter, const void *ctx, char *buf,
                             size_t len)
{
    (void)buf;
    (void)len;
    return ctx == NULL ? nodeview_header(letter) : jobview_header(letter);
}

/* sinfo -N -l over two nodes of one partition, widths fitted. */
static void test_sinfo_node_long(void **state)
{
    json_t *part = load("{\"name\": \"gpu\", \"state\": \"UP\","
                        " \"default\": true, \"nodes\": \"node[01-02]\"}");
    json_t *nodes = json_array();
    json_t *rows = json_array(), *row;
    struct fmt_spec sp;
    struct err e;
    char *out = NULL;
    size_t len = 0, i;
    FILE *fp = open_memstream(&out, &len);

    (void)state;
    json_array_append_new(nodes, load(node_drained));
    json_array_append_new(
        nodes, load("{\"name\": \"node02\", \"state\": \"MIXED\","
                    " \"cpus\": 16, \"cpus_alloc\": 4, \"mem_mib\": 64000}"));
    assert_int_equal(
        fmt_spec_parse(NODEVIEW_FORMAT_NODE_LONG, NODEVIEW_LETTERS, &sp, &e),
        0);
    nodeview_group(rows, part, nodes, &sp, true);
    fmt_spec_fit(&sp, header_of, NULL);
    json_array_foreach(rows, i, row)
    {
        struct nodeview_row r = {part, json_object_get(row, "nodes")};
        fmt_spec_fit(&sp, nodeview_value, &r);
    }
    fmt_spec_print(fp, &sp, header_of, NULL);
    json_array_foreach(rows, i, row)
    {
        struct nodeview_row r = {part, json_object_get(row, "nodes")};
        fmt_spec_print(fp, &sp, nodeview_value, &r);
    }
    fclose(fp);
    assert_string_equal(
        out, "NODELIST  NODES PARTITION       STATE CPUS    S:C:T "
             "MEMORY TMP_DISK WEIGHT AVAIL_FE REASON              \n"
             "node01        1 gpu*          drained   16    2:8:1 "
             " 64000   100000     10  a100,ib bad fan             \n"
             "node02        1 gpu*            mixed   16   16:1:1 "
             " 64000        0      1   (null) none                \n");
    free(out);
    fmt_spec_free(&sp);
    json_decref(rows);
    json_decref(nodes);
    json_decref(part);
}

/* Print the header and one row of names (-O) for a NODE or a JOB. */
static char *named(const char *names, json_t *o, bool job)
{
    struct fmt_spec sp;
    struct err e;
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    json_t *one = json_array();
    struct nodeview_row nr = {NULL, one};
    struct jobview_row jr = {o, NOW};

    json_array_append(one, o);
    assert_int_equal(
        fmt_spec_parse_names(
            names, job ? jobview_field_code : nodeview_field_code, 20, &sp, &e),
        0);
    fmt_spec_print(fp, &sp, header_of, job ? (const void *)&jr : NULL);
    if (job)
        fmt_spec_print(fp, &sp, jobview_value, &jr);
    else
        fmt_spec_print(fp, &sp, nodeview_value, &nr);
    fclose(fp);
    fmt_spec_free(&sp);
    json_decref(one);
    return out;
}

static void test_format_names(void **state)
{
    json_t *node = load(node_drained), *job = load(job_pending);
    struct fmt_spec sp;
    struct err e;
    char *out;

    (void)state;
    /* prometheus-slurm-exporter's call: "name:" prints the value whole */
    out = named("Nodes: ,GresUsed:", node, false);
    assert_string_equal(out, "NODES GRES_USED\n1 gpu:0(IDX:N/A)\n");
    free(out);
    out = named("NodeList,StateLong:.8,SocketCoreThread:6,Features:8|", node,
                false);
    assert_string_equal(out, "NODELIST               STATES:C:T AVAIL_FE|\n"
                             "node01               drained2:8:1 a100,ib |\n");
    free(out);
    out = named("JobID:6,JobArrayID:6,Name:8,UserName:8,StateCompact:3,"
                "TimeLimit:.10,Dependency:24,Comment:.8,tres-alloc",
                job, true);
    assert_string_equal(out, "JOBID JOBID NAME    USER    ST TIME_LIMIT"
                             "DEPENDENCY               COMMENT"
                             "TRES_ALLOC          \n"
                             "42    42    train   alice   PD    1:31:00"
                             "afterok:40(unfulfilled), sweep 3"
                             "cpu=16,mem=8G,node=2\n");
    free(out);
    assert_int_equal(jobview_field_code("jobid", 5), 'A');
    assert_int_equal(nodeview_field_code("gresused", 8) > 0, 1);
    assert_int_equal(
        fmt_spec_parse_names("JobID,Bogus:5", jobview_field_code, 20, &sp, &e),
        -1);
    assert_string_equal(e.text, "invalid field \"Bogus\"");
    json_decref(node);
    json_decref(job);
}

/* The squeue letters added for Slurm, on the pending job. */
static void test_squeue_letters(void **state)
{
    json_t *job = load(job_pending);
    struct jobview_row r = {job, NOW};
    char buf[256];
    static const struct {
        char letter;
        const char *want;
    } cases[] = {
        {'A', "42"},
        {'k', "sweep 3"},
        {'f', "(null)"},
        {'v', "(null)"},
        {'w', "(null)"},
        {'h', "OK"},
        {'d', "0"},
        {'z', "*:*:*"},
        {'H', "*"},
        {'O', "0"},
        {'l', "1:31:00"},
        {'Q', "4294901758"},
        {'p', "0.99998474097810"},
        {'E', "afterok:40(unfulfilled),"
              "afterok:41_2(unfulfilled),"
              "afterany:39(unfulfilled)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(
            jobview_value(cases[i].letter, &r, buf, sizeof(buf)),
            cases[i].want);
    fmt_set_noconvert(true);
    assert_string_equal(jobview_value('m', &r, buf, sizeof(buf)), "4096M");
    fmt_set_noconvert(false);
    assert_string_equal(jobview_value('m', &r, buf, sizeof(buf)), "4G");
    json_decref(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show_job),
        cmocka_unit_test(test_show_job_fields),
        cmocka_unit_test(test_show_node),
        cmocka_unit_test(test_show_part),
        cmocka_unit_test(test_sinfo_node_long),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_squeue_letters),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
