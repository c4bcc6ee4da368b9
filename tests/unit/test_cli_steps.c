/*
 * Unit tests for the CLI's views of job steps: the JOBID[.STEP] parser of
 * scancel/sacct/sstat, the usage formats shared by sacct and sstat
 * (usageview.h), squeue --steps's columns and scontrol show step
 * (stepview.h), and sacct's step lines and --json (acctview.h), all over
 * STEP and JOB_ACCT fixtures shaped as docs/protocol.md describes them;
 * and the command-line errors of sstat, scancel, squeue -s, sacct and
 * scontrol show step, which never reach the controller.
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

#include "cli/acctview.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/stepview.h"
#include "cli/usageview.h"
#include "common/proto.h"

static void test_id_parse(void **state)
{
    static const struct {
        const char *in;
        unsigned long long job;
        long long task, step;
        const char *job_part;
    } ok[] = {
        {"12", 12, -1, STEPVIEW_NONE, "12"},
        {"12.3", 12, -1, 3, "12"},
        {"12.0", 12, -1, 0, "12"},
        {"12.batch", 12, -1, STEP_BATCH_ID, "12"},
        {"12_4", 12, 4, STEPVIEW_NONE, "12_4"},
        {"12_4.1", 12, 4, 1, "12_4"},
        {"4294967295.7", 4294967295ull, -1, 7, "4294967295"},
    };
    static const char *const bad[] = {
        "",       ".3",         "12.",       "12.x",  "0.1",
        "a.1",    "12.-1",      "12_x.1",    "12_.1", "12.4294967291",
        "12.3.4", "4294967296", "12.batchx",
    };
    struct stepview_id id;
    struct err e;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        assert_int_equal(stepview_id_parse(ok[i].in, &id, &e), 0);
        assert_int_equal(id.job_id, ok[i].job);
        assert_int_equal(id.array_task, ok[i].task);
        assert_int_equal(id.step_id, ok[i].step);
        assert_string_equal(id.job, ok[i].job_part);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_int_equal(stepview_id_parse(bad[i], &id, &e), -1);
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(e.text, "Invalid job id"));
    }
    assert_int_equal(stepview_id_parse("12.extern", &id, &e), -1);
    assert_non_null(strstr(e.text, "extern"));

    char buf[32];
    assert_string_equal(stepview_step_str(STEP_BATCH_ID, buf, sizeof(buf)),
                        "batch");
    assert_string_equal(buf, "batch"); /* messages print the buffer */
    assert_string_equal(stepview_step_str(7, buf, sizeof(buf)), "7");
}

static void test_formats(void **state)
{
    static const struct {
        unsigned long long us;
        const char *out;
    } cpu[] = {
        {0, "00:00:00"},
        {1500, "00:00.001"},
        {2013000, "00:02.013"},
        {65000000, "00:01:05"},
        {65250000, "01:05.250"},
        {3723000000ull, "01:02:03"},
        {3723500000ull, "01:02:03"},
        {86400000000ull, "1-00:00:00"},
        {93784000000ull, "1-02:03:04"},
    };
    static const struct {
        unsigned long long v;
        const char *kib, *disk;
    } sz[] = {
        {0, "0", "0"},
        {1348, "1348K", "0.00M"},
        {204800, "200M", "0.20M"},
        {1536, "1536K", "0.00M"},
        {2097152, "2G", "2M"},
        {1048576, "1G", "1M"},
        {2621440, "2560M", "2.50M"},
        {2147483648ull, "2T", "2G"},
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++)
        assert_string_equal(usageview_cpu(cpu[i].us, buf, sizeof(buf)),
                            cpu[i].out);
    for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
        assert_string_equal(usageview_kib(sz[i].v, buf, sizeof(buf)),
                            sz[i].kib);
        assert_string_equal(usageview_disk(sz[i].v, buf, sizeof(buf)),
                            sz[i].disk);
    }
    assert_string_equal(usageview_disk(10485, buf, sizeof(buf)), "0.01M");
}

/* A usage object as the controller aggregates it over a step's tasks. */
static json_t *usage_fixture(void)
{
    return json_pack(
        "{s:i, s:s, s:i, s:f, s:i, s:s, s:i, s:i, s:i, s:s, s:i, s:i,"
        " s:i, s:s, s:i, s:i, s:i, s:i, s:i,"
        " s:i, s:s, s:i, s:i, s:i, s:s, s:i, s:i, s:i}",
        "max_rss_kib", 204800, "max_rss_node", "node02", "max_rss_task", 5,
        "ave_rss_kib", 1348.75, "max_vmsize_kib", 2097152, "max_vmsize_node",
        "node01", "max_vmsize_task", 0, "ave_vmsize_kib", 1048576, "max_pages",
        17, "max_pages_node", "node01", "max_pages_task", 2, "ave_pages", 4,
        "min_cpu_us", 1000000, "min_cpu_node", "node01", "min_cpu_task", 1,
        "ave_cpu_us", 2013000, "user_cpu_us", 7000000, "sys_cpu_us", 1052000,
        "total_cpu_us", 8052000, "max_disk_read", 2621440, "max_disk_read_node",
        "node01", "max_disk_read_task", 0, "ave_disk_read", 1048576,
        "max_disk_write", 10485, "max_disk_write_node", "node02",
        "max_disk_write_task", 4, "ave_disk_write", 5000, "sampled_at",
        1700000000);
}

static const char *uv(const char *name, const struct usageview_src *src,
                      char *buf, size_t len)
{
    int f = usageview_field(name);

    assert_true(f >= 0);
    return usageview_value(f, src, buf, len);
}

static void test_usage_values(void **state)
{
    json_t *u = usage_fixture();
    struct usageview_src src = {u, 8, false}, none = {NULL, 8, false};
    static const struct {
        const char *field, *out;
    } cases[] = {
        {"MaxRSS", "200M"},
        {"maxrssnode", "node02"},
        {"MaxRSSTask", "5"},
        {"AveRSS", "1348K"},
        {"MaxVMSize", "2G"},
        {"AveVMSize", "1G"},
        {"MaxPages", "17"},
        {"AvePages", "4"},
        {"MinCPU", "00:00:01"},
        {"MinCPUNode", "node01"},
        {"AveCPU", "00:02.013"},
        {"TotalCPU", "00:08.052"},
        {"UserCPU", "00:00:07"},
        {"SystemCPU", "00:01.052"},
        {"MaxDiskRead", "2.50M"},
        {"AveDiskRead", "1M"},
        {"MaxDiskWrite", "0.01M"},
        {"MaxDiskWriteTask", "4"},
        {"AveCPUFreq", "0"},
        {"ReqCPUFreqGov", "Unknown"},
        {"ConsumedEnergy", "0"},
        {"TRESUsageInAve", "cpu=00:02.013,energy=0,fs/disk=1048576,"
                           "mem=1348K,pages=4,vmem=1G"},
        {"TRESUsageInMax", "fs/disk=2621440,mem=200M,pages=17,vmem=2G"},
        {"TRESUsageInMaxNode",
         "fs/disk=node01,mem=node02,pages=node01,vmem=node01"},
        {"TRESUsageInMaxTask", "fs/disk=0,mem=5,pages=2,vmem=0"},
        {"TRESUsageInMin", "cpu=00:00:01"},
        {"TRESUsageInTot", "cpu=00:08.052,energy=0,fs/disk=8388608,"
                           "mem=10784K,pages=32,vmem=8G"},
        {"TRESUsageOutAve", "energy=0,fs/disk=5000"},
        {"TRESUsageOutMaxNode", "fs/disk=node02"},
        {"TRESUsageOutMin", ""},
        {"TRESUsageOutTot", "energy=0,fs/disk=40000"},
    };
    char buf[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(uv(cases[i].field, &src, buf, sizeof(buf)),
                            cases[i].out);
    /* no usage: empty, except what Slurm prints for unmeasured fields */
    assert_string_equal(uv("MaxRSS", &none, buf, sizeof(buf)), "");
    assert_string_equal(uv("ReqCPUFreqMin", &none, buf, sizeof(buf)),
                        "Unknown");
    assert_int_equal(usageview_field("NoSuchField"), -1);
    assert_int_equal(usageview_field("tresusageinmaxn"),
                     usageview_field("TRESUsageInMaxNode"));
    assert_int_equal(usageview_field("Max"), -1);
    assert_int_equal(usageview_width(usageview_field("MaxDiskWriteNode")), 16);
    json_decref(u);
}

/* --noconvert: memory in KiB and disk in bytes, as measured. */
static void test_usage_noconvert(void **state)
{
    json_t *u = usage_fixture(), *zero = json_pack("{s:i}", "max_rss_kib", 0);
    struct usageview_src src = {u, 8, true}, z = {zero, 8, true};
    static const struct {
        const char *field, *out;
    } cases[] = {
        {"MaxRSS", "204800K"},
        {"AveRSS", "1348K"},
        {"MaxVMSize", "2097152K"},
        {"AveVMSize", "1048576K"},
        {"MaxDiskRead", "2621440"},
        {"AveDiskRead", "1048576"},
        {"MaxDiskWrite", "10485"},
        {"AveDiskWrite", "5000"},
        {"TotalCPU", "00:08.052"},
        {"MaxRSSNode", "node02"},
        {"TRESUsageInMax", "fs/disk=2621440,mem=204800K,pages=17,"
                           "vmem=2097152K"},
        {"TRESUsageInTot", "cpu=00:08.052,energy=0,fs/disk=8388608,"
                           "mem=10784K,pages=32,vmem=8388608K"},
    };
    char buf[512];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(uv(cases[i].field, &src, buf, sizeof(buf)),
                            cases[i].out);
    assert_string_equal(uv("MaxRSS", &z, buf, sizeof(buf)), "0");
    json_decref(zero);
    json_decref(u);
}

static json_t *step_fixture(long long job, long long step, const char *state)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:s, s:s, s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:i,"
        " s:i, s:i, s:s, s:s, s:i, s:i, s:s, s:o}",
        "job_id", (json_int_t)job, "step_id", (json_int_t)step, "name",
        step == STEP_BATCH_ID ? "batch" : "hostname", "state", state, "user_id",
        1000, "user_name", "zhangsan", "partition", "gpu", "account", "quant",
        "start_time", 1000, "end_time", 0, "time_limit_s", -1, "nodes",
        "node[01-02]", "num_nodes", 2, "ntasks", 8, "cpus", 8, "tasks_per_node",
        "4(x2)", "tres", "node=2,cpu=8,mem=4000M,gres/gpu=4", "exit_code", 0,
        "signal", 0, "reason", "", "usage", usage_fixture());
    char id[64];

    snprintf(id, sizeof(id), "%lld.%s", job,
             step == STEP_BATCH_ID ? "batch"
             : step == 0           ? "0"
                                   : "1");
    json_object_set_new(o, "id", json_string(id));
    return o;
}

static char *squeue_steps(const char *format, json_t *steps)
{
    struct fmt_spec sp;
    char *out = NULL;
    size_t len = 0, i;
    FILE *fp = open_memstream(&out, &len);
    struct err e;
    json_t *st;

    assert_int_equal(fmt_spec_parse(format, STEPVIEW_LETTERS, &sp, &e), 0);
    for (size_t k = 0; k < sp.n; k++) {
        fmt_cell(fp, stepview_header(sp.fields[k].letter), sp.fields[k].width,
                 sp.fields[k].right);
        fputs(sp.fields[k].suffix, fp);
    }
    fputc('\n', fp);
    json_array_foreach(steps, i, st)
    {
        struct stepview_row row = {st, 1065};
        fmt_spec_print(fp, &sp, stepview_value, &row);
    }
    fmt_spec_free(&sp);
    fclose(fp);
    return out;
}

static void test_squeue_steps(void **state)
{
    json_t *steps = json_pack("[o, o, o]", step_fixture(13, 0, "RUNNING"),
                              step_fixture(12, STEP_BATCH_ID, "RUNNING"),
                              step_fixture(12, 0, "RUNNING"));
    char *s;

    (void)state;
    stepview_sort(steps);
    assert_int_equal(json_integer_value(
                         json_object_get(json_array_get(steps, 1), "step_id")),
                     STEP_BATCH_ID);
    s = squeue_steps(STEPVIEW_FORMAT, steps);
    assert_string_equal(s, "         STEPID     NAME PARTITION     USER      "
                           "TIME NODELIST\n"
                           "           12.0 hostname       gpu zhangsan      "
                           "1:05 node[01-02]\n"
                           "       12.batch    batch       gpu zhangsan      "
                           "1:05 node[01-02]\n"
                           "           13.0 hostname       gpu zhangsan      "
                           "1:05 node[01-02]\n");
    free(s);
    s = squeue_steps("%i|%A|%l|%U|%I", steps);
    assert_non_null(strstr(s, "STEPID|TASKS|TIME_LIMIT|UID|STEP\n"));
    assert_non_null(strstr(s, "12.batch|8|UNLIMITED|1000|batch\n"));
    free(s);
    json_decref(steps);
}

static char *show(json_t *step, bool oneliner)
{
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);

    stepview_show(fp, step, oneliner);
    fclose(fp);
    return out;
}

static void test_show_step(void **state)
{
    json_t *st = step_fixture(12, 0, "RUNNING");
    char start[FMT_BUFLEN], want[1024], *s;

    (void)state;
    fmt_time(1000, "Unknown", start, sizeof(start));
    snprintf(want, sizeof(want),
             "StepId=12.0 UserId=1000 StartTime=%s TimeLimit=UNLIMITED\n"
             "   State=RUNNING Partition=gpu NodeList=node[01-02]\n"
             "   Nodes=2 CPUs=8 Tasks=8 Name=hostname Network=(null)\n"
             "   TRES=node=2,cpu=8,mem=4000M,gres/gpu=4\n"
             "   ResvPorts=(null)\n"
             "   CPUFreqReq=Default\n",
             start);
    s = show(st, false);
    assert_string_equal(s, want);
    free(s);
    json_object_set_new(st, "time_limit_s", json_integer(3600));
    json_object_set_new(st, "distribution", json_string("cyclic"));
    s = show(st, true);
    assert_non_null(strstr(s, "TimeLimit=01:00:00 State=RUNNING"));
    assert_non_null(strstr(s, "CPUFreqReq=Default Dist=Cyclic\n"));
    assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
    free(s);
    json_decref(st);
}

/* A JOB_ACCT record with its batch step and step 0 (exit 3). */
static json_t *acct_fixture(void)
{
    json_t *batch = step_fixture(42, STEP_BATCH_ID, "COMPLETED"),
           *s0 = step_fixture(42, 0, "FAILED");

    json_object_set_new(batch, "end_time", json_integer(1075));
    json_object_set_new(batch, "ntasks", json_integer(1));
    json_object_set_new(batch, "cpus", json_integer(4));
    json_object_set_new(s0, "end_time", json_integer(1070));
    json_object_set_new(s0, "exit_code", json_integer(3));
    return json_pack(
        "{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i,"
        " s:s, s:s, s:{s:i, s:i}, s:i, s:i, s:s, s:[o, o]}",
        "job_id", 42, "name", "train", "partition", "gpu", "account", "quant",
        "job_state", "COMPLETED", "user_id", 1000, "user_name", "zhangsan",
        "submit_time", 990, "start_time", 1000, "end_time", 1075, "node_list",
        "node[01-02]", "batch_host", "node01", "exit_code", "return_code", 0,
        "signal", 0, "cpus", 8, "nodes", 2, "tres_alloc_str",
        "cpu=8,mem=4000M,node=2", "steps", batch, s0);
}

static char *sacct(const char *fields, json_t *job)
{
    struct acctview_spec sp;
    char *out = NULL;
    size_t len = 0, i;
    FILE *fp = open_memstream(&out, &len);
    struct err e;
    json_t *rec;

    assert_int_equal(acctview_spec_parse(fields, &sp, &e), 0);
    acctview_header(fp, &sp, FMT_TAB_PARSABLE2);
    struct acctview_row r = {job, NULL, 2000, NULL, false};
    acctview_print(fp, &sp, FMT_TAB_PARSABLE2, &r);
    json_array_foreach(acctview_steps(job), i, rec)
    {
        struct acctview_row s = {job, NULL, 2000, rec, false};
        acctview_print(fp, &sp, FMT_TAB_PARSABLE2, &s);
    }
    acctview_spec_free(&sp);
    fclose(fp);
    return out;
}

static void test_sacct_steps(void **state)
{
    json_t *job = acct_fixture(), *o, *steps, *s0;
    char *s;

    (void)state;
    s = sacct(ACCTVIEW_DEFAULT, job);
    assert_string_equal(s, "JobID|JobName|Partition|Account|AllocCPUS|State|"
                           "ExitCode\n"
                           "42|train|gpu|quant|8|COMPLETED|0:0\n"
                           "42.batch|batch||quant|4|COMPLETED|0:0\n"
                           "42.0|hostname||quant|8|FAILED|3:0\n");
    free(s);
    s = sacct("JobID,NTasks,NNodes,Elapsed,MaxRSS,TotalCPU,AllocTRES,"
              "NodeList",
              job);
    assert_string_equal(
        s, "JobID|NTasks|NNodes|Elapsed|MaxRSS|TotalCPU|AllocTRES|NodeList\n"
           "42||2|00:01:15||00:16.104|cpu=8,mem=4000M,node=2|node[01-02]\n"
           "42.batch|1|2|00:01:15|200M|00:08.052|"
           "cpu=8,gres/gpu=4,mem=4000M,node=2|node[01-02]\n"
           "42.0|8|2|00:01:10|200M|00:08.052|"
           "cpu=8,gres/gpu=4,mem=4000M,node=2|node[01-02]\n");
    free(s);
    /* --noconvert: a step's MaxRSS in K as measured, the job's empty */
    {
        struct acctview_row r0 = {job, NULL, 2000,
                                  json_array_get(acctview_steps(job), 1), true},
                            j0 = {job, NULL, 2000, NULL, true};
        char buf[64];
        assert_string_equal(
            acctview_value(acctview_field("MaxRSS"), &r0, buf, sizeof(buf)),
            "204800K");
        assert_string_equal(
            acctview_value(acctview_field("MaxRSS"), &j0, buf, sizeof(buf)),
            "");
    }
    /* columns: usage fields are right-justified at Slurm's widths */
    struct acctview_spec sp;
    struct err e;
    assert_int_equal(acctview_spec_parse("MaxRSS,MaxDiskWriteNode", &sp, &e),
                     0);
    assert_int_equal(sp.cols[0].width, 10);
    assert_int_equal(sp.cols[1].width, 16);
    assert_false(sp.tab[0].left);
    acctview_spec_free(&sp);
    assert_non_null(strstr(acctview_fields(), ",NTasks,"));
    assert_non_null(strstr(acctview_fields(), ",Flags,MaxRSS,"));

    o = acctview_json(job, 2000);
    steps = json_object_get(o, "steps");
    assert_int_equal(json_array_size(steps), 2);
    s0 = json_array_get(steps, 1);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(steps, 0), "step_id")),
        "batch");
    assert_string_equal(json_string_value(json_object_get(s0, "id")), "42.0");
    assert_string_equal(json_string_value(json_object_get(s0, "state")),
                        "FAILED");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(s0, "exit_code"), "return_code")),
                     3);
    assert_int_equal(json_integer_value(json_object_get(s0, "elapsed_s")), 70);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(s0, "usage"), "max_rss_kib")),
                     204800);
    json_decref(o);
    json_decref(job);
}

/* A running step: End Unknown, Elapsed up to now, state as sent. */
static void test_sacct_running_step(void **state)
{
    json_t *job = acct_fixture(), *rec;
    struct acctview_row r;
    char buf[256];

    (void)state;
    rec = json_array_get(acctview_steps(job), 1);
    json_object_set_new(rec, "end_time", json_integer(0));
    json_object_set_new(rec, "state", json_string("RUNNING"));
    r = (struct acctview_row){job, NULL, 1100, rec, false};
    assert_string_equal(
        acctview_value(acctview_field("End"), &r, buf, sizeof(buf)), "Unknown");
    assert_string_equal(
        acctview_value(acctview_field("ElapsedRaw"), &r, buf, sizeof(buf)),
        "100");
    assert_string_equal(acctview_state(&r, buf, sizeof(buf)), "RUNNING");
    assert_string_equal(
        acctview_value(acctview_field("Partition"), &r, buf, sizeof(buf)), "");
    json_decref(job);
}

/* Run fn on words (NULL-terminated); its exit code, and its stderr in
 * out. */
static int run(int (*fn)(int, char **), const char *const *words, char *out,
               size_t len)
{
    char *argv[16];
    int argc = 0, saved, rc;
    FILE *tmp = tmpfile();
    size_t n;

    assert_non_null(tmp);
    for (; words[argc] != NULL; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    dup2(fileno(tmp), STDERR_FILENO);
    rc = fn(argc, argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    n = fread(out, 1, len - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    return rc;
}

static void test_cli_errors(void **state)
{
    static const struct {
        int (*fn)(int, char **);
        const char *words[8];
        const char *err;
    } cases[] = {
        {cmd_sstat,
         {"sstat", NULL},
         "sstat: error: You didn't give me any jobs to stat (-j "
         "JOBID[.STEP])\n"},
        {cmd_sstat,
         {"sstat", "-j", "12.x", NULL},
         "sstat: error: Invalid job id: 12.x\n"},
        {cmd_sstat,
         {"sstat", "-j", "12_3.0", NULL},
         "sstat: error: Invalid job id: 12_3.0 (give an array task's own job "
         "id)\n"},
        {cmd_sstat,
         {"sstat", "-j", "12", "-o", "JobID,Nope", NULL},
         "sstat: error: Invalid field requested: \"Nope\" (see "
         "--helpformat)\n"},
        {cmd_cancel,
         {"scancel", "12.extern", NULL},
         "scancel: error: Invalid job id: 12.extern (Sluice has no extern "
         "step)\n"},
        {cmd_cancel,
         {"scancel", "-u", "0", "12.0", NULL},
         "scancel: error: job step ids (JOBID.STEP) cannot be combined with "
         "-u, -p, -t, -n or -w\n"},
        {cmd_queue,
         {"squeue", "-s", "-o", "%T", NULL},
         "squeue: error: --format: invalid field \"%T\" at column 1\n"},
        {cmd_queue,
         {"squeue", "--steps=12.q", NULL},
         "squeue: error: Invalid job id: 12.q\n"},
        {cmd_acct,
         {"sacct", "-j", "5,12.q", NULL},
         "sacct: error: Invalid job id: 12.q\n"},
        {cmd_scontrol,
         {"scontrol", "show", "step", "12.q", NULL},
         "scontrol: error: Invalid job id specified: 12.q\n"},
        {cmd_scontrol,
         {"scontrol", "show", "step", "1", "2", NULL},
         "scontrol: error: usage: show step [JOBID[.STEP]]\n"},
    };
    char out[1024];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = run(cases[i].fn, cases[i].words, out, sizeof(out));
        assert_string_equal(out, cases[i].err);
        assert_true(rc == 1 || rc == 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_id_parse),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_usage_values),
        cmocka_unit_test(test_usage_noconvert),
        cmocka_unit_test(test_squeue_steps),
        cmocka_unit_test(test_show_step),
        cmocka_unit_test(test_sacct_steps),
        cmocka_unit_test(test_sacct_running_step),
        cmocka_unit_test(test_cli_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
