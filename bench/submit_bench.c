/*
 * Submission throughput and latency against a running sluicectld: N client
 * processes, each on one persistent connection, each submitting M jobs as
 * fast as the controller acknowledges them (every acknowledgement means the
 * job is durable: group commit).  Prints jobs/s, p50/p99 latency and the
 * CPU time the clients (and the processes they ran) used per job.
 *
 *   build/bench/submit_bench -c CLIENTS -n JOBS_PER_CLIENT [--tcp] [--hold]
 *                            [--vary]
 *                            [-p PARTITION] [--cli SBATCH] [--squeue]
 *
 * The controller is found through SLUICE_CONF, as the CLI finds it: its
 * unix socket by default, TCP with the configured auth/key with --tcp.
 * With --cli each submission is instead one run of the command SBATCH
 * ("SBATCH --parsable --wrap true [-H] [-p PARTITION]", output discarded),
 * as a shell loop would run it: the latency is the whole process's.
 * --vary gives the jobs (over the API) 4 time limits, 1, 2 or 4 GPUs and
 * 1, 2 or 4 CPUs, so that backfill has varied work.  --squeue sends,
 * instead of submissions, squeue's default query (the unfinished jobs, the
 * fields of its default columns) on the persistent connection: the
 * controller's answer time without the start of a client process.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/jobview.h"
#include "common/auth.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/proto.h"
#include "common/xalloc.h"

struct opts {
    int clients;
    int jobs;
    bool tcp;
    bool hold;
    bool vary;   /* --vary: shapes and time limits vary by job */
    bool squeue; /* --squeue: squeue's default query, not submissions */
    const char *partition;
    const char *cli; /* one process of this command per submission */
};

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* CPU time (user and system, ms) of the clients and what they ran. */
static double children_cpu_ms(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
        return 0;
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A job running "true" in the current directory (its slurm-N.out goes
 * there). */
static json_t *job_spec(const struct opts *o, int i)
{
    char cwd[4096];
    json_t *job;

    if (getcwd(cwd, sizeof(cwd)) == NULL)
        strcpy(cwd, "/");
    job = json_pack("{s:s, s:s, s:s, s:b}", "name", "bench", "script",
                    "#!/bin/sh\ntrue\n", "work_dir", cwd, "hold", o->hold);
    json_object_set_new(job, "environment", json_pack("{s:s}", "I", "x"));
    if (o->partition)
        json_object_set_new(job, "partition", json_string(o->partition));
    if (o->vary) { /* 4 time limits x 3 GPU counts x 3 CPU counts */
        static const int lim_s[] = {600, 3600, 14400, 86400};
        static const char *const gres[] = {"gpu:1", "gpu:2", "gpu:4"};
        json_object_set_new(job, "time_limit_s", json_integer(lim_s[i % 4]));
        json_object_set_new(job, "gres", json_string(gres[i / 4 % 3]));
        json_object_set_new(job, "cpus_per_task",
                            json_integer(1 << (i / 12 % 3)));
    }
    return json_pack("{s:o}", "job", job);
}

/* squeue's default query: the unfinished jobs, the fields of its default
 * columns. */
static json_t *squeue_query(void)
{
    static const char letters[] = "iPjutMDR"; /* JOBVIEW_FORMAT's */

    return json_pack("{s:[ssss], s:o}", "states", "PENDING", "RUNNING",
                     "SUSPENDED", "COMPLETING", "fields",
                     jobview_fields(letters, sizeof(letters) - 1));
}

/* Latencies to the pipe the clients share, in writes of at most PIPE_BUF
 * bytes, which the kernel keeps whole: values never interleave. */
static int write_lat(int fd, const double *lat, int n)
{
    const size_t per = PIPE_BUF / sizeof(*lat);

    for (size_t i = 0; i < (size_t)n; i += per) {
        size_t k = (size_t)n - i < per ? (size_t)n - i : per;
        if (write(fd, lat + i, k * sizeof(*lat)) != (ssize_t)(k * sizeof(*lat)))
            return -1;
    }
    return 0;
}

/* One submission through the CLI: fork, exec, wait; 0 if it succeeded. */
static int cli_submit(const struct opts *o)
{
    const char *argv[9] = {o->cli, "--parsable", "--wrap", "true"};
    int argc = 4, st;
    pid_t pid;

    if (o->hold)
        argv[argc++] = "-H";
    if (o->partition) {
        argv[argc++] = "-p";
        argv[argc++] = o->partition;
    }
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        execv(o->cli, (char *const *)argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0) {
        fprintf(stderr, "submit_bench: %s failed\n", o->cli);
        return -1;
    }
    return 0;
}

/* One client running the CLI o->jobs times; latencies (us) to fd. */
static int run_cli_client(const struct opts *o, int fd)
{
    double *lat = xcalloc(o->jobs, sizeof(*lat));

    for (int i = 0; i < o->jobs; i++) {
        double t0 = now_us();
        if (cli_submit(o) < 0)
            return 1;
        lat[i] = now_us() - t0;
    }
    if (write_lat(fd, lat, o->jobs) < 0)
        return 1;
    free(lat);
    return 0;
}

/* One client: connect, submit o->jobs jobs, write latencies (us) to fd. */
static int run_client(const struct conf *c, const struct opts *o, int fd)
{
    struct err e = {{0}};
    struct auth *a = NULL;
    struct proto_conn *pc;
    char addr[512];
    double *lat = xcalloc(o->jobs, sizeof(*lat));

    if (o->tcp) {
        const struct conf_ctld_host *h = &c->ctld_hosts[0];
        snprintf(addr, sizeof(addr), "%s:%u", h->addr[0] ? h->addr : h->host,
                 c->slurmctld_port);
        a = auth_create_conf(c, &e);
        if (a == NULL) {
            fprintf(stderr, "submit_bench: %s\n", e.text);
            return 1;
        }
    } else {
        snprintf(addr, sizeof(addr), "unix:%s/sluicectld.sock",
                 c->state_save_location);
    }
    pc = proto_connect(addr, 5000, &e);
    if (pc == NULL) {
        fprintf(stderr, "submit_bench: %s\n", e.text);
        return 1;
    }
    for (int i = 0; i < o->jobs; i++) {
        uint16_t type = o->squeue ? PROTO_MSG_JOB_QUERY : PROTO_MSG_SUBMIT;
        json_t *req = o->squeue ? squeue_query() : job_spec(o, i),
               *reply = NULL;
        double t0 = now_us();
        if (proto_call(pc, a, type, req, &reply, 30000, &e) < 0) {
            fprintf(stderr, "submit_bench: %s: %s\n", proto_type_name(type),
                    e.text);
            return 1;
        }
        lat[i] = now_us() - t0;
        json_decref(req);
        json_decref(reply);
    }
    if (write_lat(fd, lat, o->jobs) < 0)
        return 1;
    proto_close(pc);
    auth_destroy(a);
    free(lat);
    return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"clients", required_argument, NULL, 'c'},
        {"jobs", required_argument, NULL, 'n'},
        {"partition", required_argument, NULL, 'p'},
        {"tcp", no_argument, NULL, 't'},
        {"hold", no_argument, NULL, 'H'},
        {"vary", no_argument, NULL, 'V'},
        {"cli", required_argument, NULL, 'C'},
        {"squeue", no_argument, NULL, 'Q'},
        {NULL, 0, NULL, 0},
    };
    int ch;

    *o = (struct opts){.clients = 1, .jobs = 1000};
    while ((ch = getopt_long(argc, argv, "c:n:p:", lo, NULL)) != -1) {
        switch (ch) {
        case 'c':
            o->clients = atoi(optarg);
            break;
        case 'n':
            o->jobs = atoi(optarg);
            break;
        case 'p':
            o->partition = optarg;
            break;
        case 't':
            o->tcp = true;
            break;
        case 'H':
            o->hold = true;
            break;
        case 'V':
            o->vary = true;
            break;
        case 'C':
            o->cli = optarg;
            break;
        case 'Q':
            o->squeue = true;
            break;
        default:
            return -1;
        }
    }
    return o->clients > 0 && o->jobs > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct err e = {{0}};
    const char *path = getenv("SLUICE_CONF");
    struct conf *c;
    int pfd[2];
    size_t total, got = 0;
    double *lat, t0, elapsed;
    int failed = 0;

    if (parse_opts(argc, argv, &o) < 0) {
        fprintf(stderr, "usage: submit_bench [-c CLIENTS] [-n JOBS] "
                        "[-p PARTITION] [--tcp] [--hold] [--vary] "
                        "[--cli SBATCH] [--squeue]\n");
        return 2;
    }
    c = conf_load(path ? path : CONF_DEFAULT_PATH, NULL, &e);
    if (c == NULL) {
        fprintf(stderr, "submit_bench: %s\n", e.text);
        return 1;
    }
    total = (size_t)o.clients * o.jobs;
    lat = xcalloc(total, sizeof(*lat));
    if (pipe(pfd) < 0)
        return 1;
    t0 = now_us();
    for (int i = 0; i < o.clients; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(pfd[0]);
            _exit(o.cli ? run_cli_client(&o, pfd[1])
                        : run_client(c, &o, pfd[1]));
        }
    }
    close(pfd[1]);
    for (ssize_t n;
         (n = read(pfd[0], (char *)lat + got, total * sizeof(*lat) - got)) > 0;)
        got += n;
    for (int i = 0; i < o.clients; i++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    elapsed = (now_us() - t0) / 1e6;
    if (failed || got != total * sizeof(*lat)) {
        fprintf(stderr, "submit_bench: %d client(s) failed\n", failed);
        return 1;
    }
    qsort(lat, total, sizeof(*lat), cmp_double);
    printf("clients=%d jobs=%zu transport=%s elapsed_s=%.3f jobs_per_s=%.0f "
           "p50_ms=%.3f p99_ms=%.3f client_cpu_ms_per_job=%.3f\n",
           o.clients, total,
           o.cli      ? "cli"
           : o.tcp    ? "tcp+auth"
           : o.squeue ? "unix-squeue"
                      : "unix",
           elapsed, total / elapsed, lat[total / 2] / 1e3,
           lat[(size_t)(total * 0.99)] / 1e3, children_cpu_ms() / total);
    free(lat);
    conf_destroy(c);
    return 0;
}
