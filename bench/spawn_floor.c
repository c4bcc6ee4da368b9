/*
 * The machine's floor for running trivial jobs (bench/throughput.sh): one
 * process that posix_spawns a "#!/bin/sh" script N times, one after
 * another, and waits for each.  No scheduler can start and reap a shell
 * script faster than this on one core.
 *
 *   build/bench/spawn_floor [-n N] [-d DIR]
 *
 * Prints "spawns=N secs=S per_spawn_ms=M spawns_per_s=R cpu_ms_per_spawn=C"
 * (C: the CPU time, user and system, of this process and the scripts,
 * per spawn: a figure that other work on the machine changes less than
 * the wall time).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time (user and system, ms) of this process and its waited-for
 * children. */
static double cpu_ms(void)
{
    struct rusage self, kids;
    double ms = 0;

    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    for (int i = 0; i < 2; i++) {
        const struct rusage *r = i == 0 ? &self : &kids;
        ms += (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1e3 +
              (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e3;
    }
    return ms;
}

/* A trivial job script in DIR (the same body sbatch --wrap=true runs). */
static int write_script(const char *path)
{
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return -1;
    fputs("#!/bin/sh\ntrue\n", f);
    if (fclose(f) != 0)
        return -1;
    return chmod(path, 0700);
}

int main(int argc, char **argv)
{
    const char *dir = "/tmp";
    long n = 1000;
    char path[4096];
    int opt;

    while ((opt = getopt(argc, argv, "n:d:")) != -1) {
        if (opt == 'n')
            n = strtol(optarg, NULL, 10);
        else if (opt == 'd')
            dir = optarg;
        else
            goto usage;
    }
    if (n <= 0)
        goto usage;
    snprintf(path, sizeof(path), "%s/spawn_floor.%ld.sh", dir, (long)getpid());
    if (write_script(path) < 0) {
        fprintf(stderr, "spawn_floor: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char *argv_job[] = {path, NULL};
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        pid_t pid;
        int st, rc = posix_spawn(&pid, path, NULL, NULL, argv_job, environ);
        if (rc != 0) {
            fprintf(stderr, "spawn_floor: posix_spawn: %s\n", strerror(rc));
            unlink(path);
            return 1;
        }
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    double secs = now_s() - t0;
    unlink(path);
    printf("spawns=%ld secs=%.3f per_spawn_ms=%.3f spawns_per_s=%.1f "
           "cpu_ms_per_spawn=%.3f\n",
           n, secs, secs * 1e3 / (double)n, (double)n / secs,
           cpu_ms() / (double)n);
    return 0;
usage:
    fprintf(stderr, "usage: spawn_floor [-n N] [-d DIR]\n");
    return 2;
}
