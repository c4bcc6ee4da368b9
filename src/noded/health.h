/*
 * What sluiced says of itself beyond its resources, for `sluice doctor`
 * (docs/doctor.md): its host name, its clock, and whether its GPUs are
 * fenced off from the jobs that were not given them (the device rules of
 * the job's cgroup).  The fence's verdict is a pure function of what the
 * node found (health_fence_judge); health_look finds it.
 */
#ifndef SLUICE_NODED_HEALTH_H
#define SLUICE_NODED_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "noded/cgroup.h"

struct noded;

enum health_fence {
    HEALTH_FENCE_NONE, /* nothing to fence: no GPU device files */
    HEALTH_FENCE_ON,   /* a job opens only its own GPUs' device files */
    HEALTH_FENCE_OFF,  /* GPUs there, not fenced: why says why */
};

/* What the fence's verdict is made of. */
struct health_fence_facts {
    enum cgroup_version version;
    bool devices;           /* the hierarchy can fence (v1 devices, v2) */
    bool constrain;         /* cgroup.conf ConstrainDevices=yes */
    const char *cgroup_why; /* version NONE: why there is no cgroup */
    size_t gpus;            /* GPUs the node reports */
    size_t gpu_files;       /* of them, with a character device here */
    size_t dev_nvidia;      /* /dev/nvidiaN character devices here */
    int bpf_errno;          /* v2: loading a device program failed */
};

/*
 * health_fence_judge: whether jobs on the node are fenced to their GPUs;
 * for HEALTH_FENCE_OFF the reason and what to do into why ("" otherwise):
 * "ConstrainDevices=no in cgroup.conf: every job can open all 4 GPUs of
 * the node".  Pure.
 */
enum health_fence health_fence_judge(const struct health_fence_facts *f,
                                     char *why, size_t len);
/* health_fence_name: "none", "on", "off". */
const char *health_fence_name(enum health_fence f);

/*
 * health_look: the fence of nd as it is (stat of the GPUs' device files,
 * /dev, and on cgroup v2 with GPU files and ConstrainDevices=yes a BPF
 * device program loaded and dropped) into nd->fence and nd->fence_why,
 * and the test knob SLUICE_TEST_CLOCK_SKEW_S into nd->clock_skew_s.
 * Logs the fence when it is off and the knob when it is set.
 */
void health_look(struct noded *nd);

/* health_now: the node's clock as it reports it (with the test skew). */
int64_t health_now(const struct noded *nd);

/* health_register: the members of NODE_REGISTER that say this: "hostname",
 * "time", "cgroup" ("v2", "v1", "none"), "gpu_fence" ({"state",
 * "reason"}), added to body. */
void health_register(const struct noded *nd, json_t *body);

#endif
