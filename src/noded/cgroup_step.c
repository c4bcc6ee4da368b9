/*
 * A step's cgroup.  On v2 each step gets step_<id> below its job's cgroup
 * (no controller is enabled below the job's: the batch script lives in
 * the job's cgroup itself, and v2 forbids controllers beside processes),
 * which tracks the step's processes, kills them all (cgroup.kill) and
 * counts their CPU time (cpu.stat); the job's limits hold for it.  On v1
 * the step's tasks enter the job's cgroups (its limits and fence) and the
 * step is found by its process group.
 */
#include "noded/cgroup.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "noded/cgroup_int.h"

void cgroup_step_path(const struct cgroup *cg, uint32_t job_id,
                      uint32_t step_id, char *buf, size_t len)
{
    char job[CGROUP_PATH_MAX];

    buf[0] = '\0';
    if (cg->version != CGROUP_V2)
        return;
    cgroup_job_path(cg, 0, job_id, job, sizeof(job));
    if (job[0] != '\0' &&
        snprintf(buf, len, "%s/step_%" PRIu32, job, step_id) >= (int)len)
        buf[0] = '\0';
}

int cgroup_step_create(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, struct err *e)
{
    char dir[CGROUP_PATH_MAX];

    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0')
        return 0;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return err_set(e, "cannot create the step's cgroup %s: %s", dir,
                       strerror(errno));
    return 0;
}

int cgroup_step_enter(const struct cgroup *cg, uint32_t job_id,
                      uint32_t step_id, struct err *e)
{
    char dir[CGROUP_PATH_MAX], pid[24];

    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0')
        return cgroup_job_enter(cg, job_id, e);
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    return cgroup_file_write(dir, "cgroup.procs", pid, e);
}

int cgroup_step_freeze(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, bool on)
{
    char dir[CGROUP_PATH_MAX];

    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0') {
        errno = ENOTSUP;
        return -1;
    }
    return cgroup_file_write(dir, "cgroup.freeze", on ? "1" : "0", NULL);
}

int cgroup_step_signal(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, int sig)
{
    char dir[CGROUP_PATH_MAX];
    pid_t *pids;
    size_t n;
    int sent = 0;

    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0' || cgroup_dir_pids(dir, &pids, &n) < 0)
        return 0;
    if (sig == SIGKILL && cg->has_kill && n > 0 &&
        cgroup_file_write(dir, "cgroup.kill", "1", NULL) == 0)
        sent = (int)n;
    else
        for (size_t i = 0; i < n; i++)
            sent += kill(pids[i], sig) == 0;
    free(pids);
    return sent;
}

/* A "key value" line of dir/file, or -1. */
static int64_t stat_value(const char *dir, const char *file, const char *key)
{
    char *text = cgroup_file_read(dir, file), *p;
    size_t kl = strlen(key);
    int64_t v = -1;

    for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (key[0] == '\0' || (strncmp(p, key, kl) == 0 && p[kl] == ' ')) {
            v = strtoll(p + (key[0] ? kl + 1 : 0), NULL, 10);
            break;
        }
    }
    free(text);
    return v;
}

void cgroup_step_usage(const struct cgroup *cg, uint32_t job_id,
                       uint32_t step_id, int64_t *mem_peak_kib, int64_t *cpu_us)
{
    char dir[CGROUP_PATH_MAX];
    int64_t peak;

    *mem_peak_kib = *cpu_us = -1;
    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0')
        return;
    *cpu_us = stat_value(dir, "cpu.stat", "usage_usec");
    if ((peak = stat_value(dir, "memory.peak", "")) >= 0)
        *mem_peak_kib = peak / 1024;
}

void cgroup_step_destroy(const struct cgroup *cg, uint32_t job_id,
                         uint32_t step_id)
{
    char dir[CGROUP_PATH_MAX];
    struct timespec ts = {0, 10000000};

    cgroup_step_path(cg, job_id, step_id, dir, sizeof(dir));
    if (dir[0] == '\0')
        return;
    for (int i = 0; rmdir(dir) < 0 && errno == EBUSY && i < 50; i++)
        nanosleep(&ts, NULL);
}

bool cgroup_job_exists(const struct cgroup *cg, uint32_t job_id)
{
    char dir[CGROUP_PATH_MAX];

    for (int c = 0; c < (cg->version == CGROUP_V2 ? 1 : CGROUP_NCTL); c++) {
        cgroup_job_path(cg, (enum cgroup_ctl)c, job_id, dir, sizeof(dir));
        if (dir[0] != '\0')
            return access(dir, F_OK) == 0;
    }
    return false;
}
