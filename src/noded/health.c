/*
 * The node's word on itself for `sluice doctor` (health.h): its host
 * name and clock, and whether its GPU device fence works.
 */
#include "noded/health.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/log.h"
#include "noded/noded.h"

/* The test knob's bound: a day either way. */
#define HEALTH_SKEW_MAX_S 86400

enum health_fence health_fence_judge(const struct health_fence_facts *f,
                                     char *why, size_t len)
{
    snprintf(why, len, "%s", "");
    if (f->gpu_files == 0 && (f->gpus == 0 || f->dev_nvidia == 0))
        return HEALTH_FENCE_NONE;
    if (f->gpu_files == 0) {
        snprintf(why, len,
                 "gres.conf declares the node's %zu GPUs by count only, but "
                 "this machine has %zu /dev/nvidia* devices: every job can "
                 "open all of them; declare them with File= or "
                 "AutoDetect=nvml and set ConstrainDevices=yes",
                 f->gpus, f->dev_nvidia);
        return HEALTH_FENCE_OFF;
    }
    if (!f->constrain)
        snprintf(why, len,
                 "ConstrainDevices=no in cgroup.conf: every job can open all "
                 "%zu GPUs of the node, not only its own",
                 f->gpu_files);
    else if (f->version == CGROUP_NONE)
        snprintf(why, len,
                 "ConstrainDevices=yes, but there is no cgroup (%s): every "
                 "job can open all %zu GPUs of the node",
                 f->cgroup_why ? f->cgroup_why : "none", f->gpu_files);
    else if (!f->devices)
        snprintf(why, len,
                 "ConstrainDevices=yes, but cgroup v1 has no writable devices "
                 "hierarchy: every job can open all %zu GPUs of the node",
                 f->gpu_files);
    else if (f->version == CGROUP_V2 && f->bpf_errno != 0)
        snprintf(why, len,
                 "ConstrainDevices=yes, but a BPF device program cannot be "
                 "loaded (%s; sluiced needs root and bpf(2)): every job can "
                 "open all %zu GPUs of the node",
                 strerror(f->bpf_errno), f->gpu_files);
    else
        return HEALTH_FENCE_ON;
    return HEALTH_FENCE_OFF;
}

const char *health_fence_name(enum health_fence f)
{
    return f == HEALTH_FENCE_ON ? "on" : f == HEALTH_FENCE_OFF ? "off" : "none";
}

/* /dev/nvidiaN character devices of this machine. */
static size_t dev_nvidia(void)
{
    DIR *dir = opendir("/dev");
    struct dirent *de;
    struct stat st;
    char path[300];
    size_t n = 0;

    if (dir == NULL)
        return 0;
    while ((de = readdir(dir)) != NULL) {
        const char *num = de->d_name + 6;
        if (strncmp(de->d_name, "nvidia", 6) != 0 || *num == '\0' ||
            strspn(num, "0123456789") != strlen(num))
            continue;
        snprintf(path, sizeof(path), "/dev/%s", de->d_name);
        if (stat(path, &st) == 0 && S_ISCHR(st.st_mode))
            n++;
    }
    closedir(dir);
    return n;
}

/* SLUICE_TEST_CLOCK_SKEW_S: seconds the node adds to the time it
 * reports, for tests of sluice doctor's clock check only. */
static int64_t clock_skew(void)
{
    const char *s = getenv("SLUICE_TEST_CLOCK_SKEW_S");
    char *end;
    long long v;

    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < -HEALTH_SKEW_MAX_S ||
        v > HEALTH_SKEW_MAX_S) {
        log_warnx("SLUICE_TEST_CLOCK_SKEW_S=%.32s ignored: expected -%d..%d", s,
                  HEALTH_SKEW_MAX_S, HEALTH_SKEW_MAX_S);
        return 0;
    }
    if (v != 0)
        log_warnx("SLUICE_TEST_CLOCK_SKEW_S=%lld: the node reports its clock "
                  "%lld s off (for tests only)",
                  v, v);
    return (int64_t)v;
}

void health_look(struct noded *nd)
{
    struct health_fence_facts f = {
        .version = nd->cg.version,
        .devices = nd->cg.devices,
        .constrain = nd->cg.conf.constrain_devices,
        .cgroup_why = nd->cg.why,
        .gpus = nd->res.gpus.n,
        .dev_nvidia = dev_nvidia(),
    };
    struct stat st;
    struct err e;

    for (size_t i = 0; i < nd->res.gpus.n; i++) {
        const char *file = nd->res.gpus.v[i].file;
        if (file != NULL && stat(file, &st) == 0 && S_ISCHR(st.st_mode))
            f.gpu_files++;
    }
    if (f.version == CGROUP_V2 && f.constrain && f.gpu_files > 0 &&
        cgroup_bpf_probe(&e) < 0)
        f.bpf_errno = errno ? errno : EPERM;
    nd->fence = health_fence_judge(&f, nd->fence_why, sizeof(nd->fence_why));
    if (nd->fence == HEALTH_FENCE_OFF)
        log_warnx("node=%s gpu_fence=off reason=\"%s\"", nd->name,
                  nd->fence_why);
    else
        log_info("node=%s gpu_fence=%s", nd->name,
                 health_fence_name(nd->fence));
    nd->clock_skew_s = clock_skew();
}

int64_t health_now(const struct noded *nd)
{
    return (int64_t)time(NULL) + nd->clock_skew_s;
}

void health_register(const struct noded *nd, json_t *body)
{
    static const char *const versions[] = {
        [CGROUP_NONE] = "none", [CGROUP_V1] = "v1", [CGROUP_V2] = "v2"};

    json_object_set_new(body, "hostname", json_string(nd->hostname));
    json_object_set_new(body, "time", json_integer(health_now(nd)));
    json_object_set_new(body, "cgroup", json_string(versions[nd->cg.version]));
    json_object_set_new(body, "gpu_fence",
                        json_pack("{s:s, s:s}", "state",
                                  health_fence_name(nd->fence), "reason",
                                  nd->fence_why));
}
