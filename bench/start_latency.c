/*
 * Start latency on an idle cluster: from the moment the client sends
 * SUBMIT to the moment the job's own first instruction runs.  One job at a
 * time (the next is submitted once the last has ended, so the cluster is
 * idle each time), on one persistent connection.
 *
 *   build/bench/start_latency [-n JOBS] [-p PARTITION] [--tcp]
 *
 * The job's script is "#!/abs/path/start_latency --stamp": the kernel runs
 * this same binary as the job, which reads CLOCK_REALTIME first thing and
 * writes "JOBID NS" to a FIFO the benchmark waits on.  So the figure
 * includes everything a job waits for — the controller's group commit and
 * scheduling pass, JOB_LAUNCH, the node's spool, the supervisor's fork,
 * cgroup and exec — and no shell start-up or polling.  Both clocks are
 * the same machine's CLOCK_REALTIME.  Prints the median, p90, p99 and
 * maximum, the median time to the SUBMIT reply, and, measured the same
 * way in the same run, the floor this machine sets: fork and exec of the
 * same stamp by the benchmark itself (one new process, where a job's start
 * takes three: sluiced's launcher, the supervisor and the job).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/proto.h"
#include "common/xalloc.h"

#define STAMP_ENV "SLUICE_BENCH_STAMP_FIFO"

static int64_t realtime_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* As the job: the time first, then where it goes. */
static int stamp(void)
{
    int64_t t = realtime_ns();
    const char *fifo = getenv(STAMP_ENV), *id = getenv("SLURM_JOB_ID");
    int fd;

    if (fifo == NULL || id == NULL || (fd = open(fifo, O_WRONLY)) < 0)
        return 1;
    dprintf(fd, "%s %" PRId64 "\n", id, t);
    close(fd);
    return 0;
}

struct opts {
    int jobs;
    const char *partition;
    bool tcp;
};

struct bench {
    struct opts o;
    struct proto_conn *pc;
    struct auth *auth;
    char self[PATH_MAX], cwd[PATH_MAX], fifo[PATH_MAX + 32];
    FILE *in; /* the FIFO's read end */
};

static json_t *job_spec(const struct bench *b)
{
    char script[PATH_MAX + 32];
    json_t *job;

    snprintf(script, sizeof(script), "#!%s --stamp\n", b->self);
    job = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "name", "latency",
                    "script", script, "work_dir", b->cwd, "std_out",
                    "/dev/null", "environment", STAMP_ENV, b->fifo);
    if (b->o.partition)
        json_object_set_new(job, "partition", json_string(b->o.partition));
    return json_pack("{s:o}", "job", job);
}

/* Wait until job id has ended (the cluster is idle again). */
static int wait_ended(struct bench *b, json_int_t id)
{
    for (int i = 0; i < 5000; i++) {
        json_t *req = json_pack("{s:[I]}", "job_ids", id), *reply = NULL;
        struct err e;
        const char *st;
        int rc = proto_call(b->pc, b->auth, PROTO_MSG_JOB_QUERY, req, &reply,
                            30000, &e);
        json_decref(req);
        if (rc < 0) {
            fprintf(stderr, "start_latency: query: %s\n", e.text);
            return -1;
        }
        st = json_string_value(json_object_get(
            json_array_get(json_object_get(reply, "jobs"), 0), "job_state"));
        rc = st != NULL && strcmp(st, "PENDING") != 0 &&
             strcmp(st, "RUNNING") != 0 && strcmp(st, "COMPLETING") != 0;
        json_decref(reply);
        if (rc)
            return 0;
        usleep(1000);
    }
    fprintf(stderr, "start_latency: job %lld did not end\n", (long long)id);
    return -1;
}

/* The floor: fork, exec of this binary as the stamp, its time; in us. */
static int floor_one(struct bench *b, double *us)
{
    long long id = -1;
    int64_t t0 = realtime_ns(), t = 0;
    pid_t pid = fork();

    if (pid == 0) {
        setenv("SLURM_JOB_ID", "0", 1);
        setenv(STAMP_ENV, b->fifo, 1);
        execl(b->self, b->self, "--stamp", (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || fscanf(b->in, "%lld %" SCNd64, &id, &t) != 2 || id != 0)
        return -1;
    waitpid(pid, NULL, 0);
    *us = (double)(t - t0) / 1e3;
    return 0;
}

/* One job: *start and *ack in microseconds after the SUBMIT was sent. */
static int one(struct bench *b, double *start, double *ack)
{
    json_t *req = job_spec(b), *reply = NULL;
    long long got_id = 0;
    int64_t t0, t_ack, t_run = 0;
    json_int_t id;
    struct err e;

    t0 = realtime_ns();
    if (proto_call(b->pc, b->auth, PROTO_MSG_SUBMIT, req, &reply, 30000, &e) <
        0) {
        fprintf(stderr, "start_latency: submit: %s\n", e.text);
        json_decref(req);
        return -1;
    }
    t_ack = realtime_ns();
    id = json_integer_value(json_object_get(reply, "job_id"));
    json_decref(req);
    json_decref(reply);
    if (fscanf(b->in, "%lld %" SCNd64, &got_id, &t_run) != 2 ||
        got_id != (long long)id) {
        fprintf(stderr, "start_latency: job %lld: no stamp (got job %lld)\n",
                (long long)id, got_id);
        return -1;
    }
    *start = (double)(t_run - t0) / 1e3;
    *ack = (double)(t_ack - t0) / 1e3;
    return wait_ended(b, id);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *v, int n, double p)
{
    int k = (int)(p * n + 0.999999) - 1;

    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"jobs", required_argument, NULL, 'n'},
        {"partition", required_argument, NULL, 'p'},
        {"tcp", no_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    int ch;

    *o = (struct opts){.jobs = 200};
    while ((ch = getopt_long(argc, argv, "n:p:", lo, NULL)) != -1) {
        if (ch == 'n')
            o->jobs = atoi(optarg);
        else if (ch == 'p')
            o->partition = optarg;
        else if (ch == 't')
            o->tcp = true;
        else
            return -1;
    }
    return o->jobs > 0 ? 0 : -1;
}

static int setup(struct bench *b, const struct conf *c, struct err *e)
{
    char addr[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", b->self, sizeof(b->self) - 1);

    if (n < 0 || getcwd(b->cwd, sizeof(b->cwd)) == NULL)
        return err_set(e, "cannot find myself: %s", strerror(errno));
    b->self[n] = '\0';
    snprintf(b->fifo, sizeof(b->fifo), "%s/start_latency.%d.fifo", b->cwd,
             (int)getpid());
    if (mkfifo(b->fifo, 0666) < 0 || chmod(b->fifo, 0666) < 0)
        return err_set(e, "mkfifo %s: %s", b->fifo, strerror(errno));
    /* read and write: never EOF between jobs */
    b->in = fopen(b->fifo, "r+");
    if (b->in == NULL)
        return err_set(e, "open %s: %s", b->fifo, strerror(errno));
    if (b->o.tcp) {
        const struct conf_ctld_host *h = &c->ctld_hosts[0];
        snprintf(addr, sizeof(addr), "%s:%u", h->addr[0] ? h->addr : h->host,
                 c->slurmctld_port);
        if ((b->auth = auth_create_conf(c, e)) == NULL)
            return -1;
    } else {
        snprintf(addr, sizeof(addr), "unix:%s/sluicectld.sock",
                 c->state_save_location);
    }
    b->pc = proto_connect(addr, 5000, e);
    return b->pc ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *path = getenv("SLUICE_CONF");
    struct bench b = {0};
    struct err e = {{0}};
    struct conf *c;
    double *start, *ack, *flo;
    int rc = 1;

    if (argc >= 2 && strcmp(argv[1], "--stamp") == 0)
        return stamp();
    if (parse_opts(argc, argv, &b.o) < 0) {
        fprintf(stderr, "usage: start_latency [-n JOBS] [-p PARTITION] "
                        "[--tcp]\n");
        return 2;
    }
    c = conf_load(path ? path : CONF_DEFAULT_PATH, NULL, &e);
    if (c == NULL || setup(&b, c, &e) < 0) {
        fprintf(stderr, "start_latency: %s\n", e.text);
        goto out;
    }
    start = xcalloc(b.o.jobs, sizeof(*start));
    ack = xcalloc(b.o.jobs, sizeof(*ack));
    flo = xcalloc(b.o.jobs, sizeof(*flo));
    /* interleaved, so that both see the same load */
    for (int i = 0; i < b.o.jobs; i++)
        if (one(&b, &start[i], &ack[i]) < 0 || floor_one(&b, &flo[i]) < 0)
            goto out;
    qsort(start, b.o.jobs, sizeof(*start), cmp_double);
    qsort(ack, b.o.jobs, sizeof(*ack), cmp_double);
    qsort(flo, b.o.jobs, sizeof(*flo), cmp_double);
    printf("jobs=%d transport=%s start_p50_ms=%.3f start_p90_ms=%.3f "
           "start_p99_ms=%.3f start_max_ms=%.3f submit_reply_p50_ms=%.3f "
           "fork_exec_p50_ms=%.3f fork_exec_p99_ms=%.3f\n",
           b.o.jobs, b.o.tcp ? "tcp+auth" : "unix",
           pct(start, b.o.jobs, 0.5) / 1e3, pct(start, b.o.jobs, 0.9) / 1e3,
           pct(start, b.o.jobs, 0.99) / 1e3, start[b.o.jobs - 1] / 1e3,
           pct(ack, b.o.jobs, 0.5) / 1e3, pct(flo, b.o.jobs, 0.5) / 1e3,
           pct(flo, b.o.jobs, 0.99) / 1e3);
    free(start);
    free(ack);
    free(flo);
    rc = 0;
out:
    if (b.in)
        fclose(b.in);
    if (b.fifo[0])
        unlink(b.fifo);
    proto_close(b.pc);
    auth_destroy(b.auth);
    conf_destroy(c);
    return rc;
}
