/*
 * cgroup.conf, beside the configuration: how sluiced fences jobs with
 * cgroups.  Slurm's keys where Sluice does the same thing (CgroupPlugin,
 * CgroupMountpoint, ConstrainCores, ConstrainRAMSpace, ConstrainSwapSpace,
 * ConstrainDevices, AllowedRAMSpace); Slurm keys Sluice does not act on
 * are accepted with a warning.
 */
#ifndef SLUICE_CGROUPCONF_H
#define SLUICE_CGROUPCONF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

#define CGROUPCONF_MOUNTPOINT "/sys/fs/cgroup"

enum cgroupconf_plugin {
    CGROUPCONF_AUTO,     /* autodetect: v2 where mounted, else v1 */
    CGROUPCONF_V1,       /* cgroup/v1 */
    CGROUPCONF_V2,       /* cgroup/v2 */
    CGROUPCONF_DISABLED, /* disabled: process groups only */
};

/* Defaults (no cgroup.conf): autodetect, every job in its own cgroup,
 * RAM, swap and cores constrained, devices not. */
struct cgroupconf {
    enum cgroupconf_plugin plugin;
    char mountpoint[256];
    bool constrain_cores;
    bool constrain_ram;
    bool constrain_swap; /* no swap beyond the RAM limit */
    bool constrain_devices;
    uint32_t allowed_ram_pct; /* AllowedRAMSpace: % of the job's memory */
};

/* cgroupconf_defaults: c as if there were no cgroup.conf. */
void cgroupconf_defaults(struct cgroupconf *c);

/*
 * cgroupconf_load: read the cgroup.conf at path into c (defaults first).
 * Warnings (keys Sluice ignores) and errors go into diag (may be NULL);
 * -1 with errno (ENOENT when there is no file, EINVAL when it is wrong)
 * and the first error in e ("cgroup.conf:3:1: ConstrainDevices=maybe:
 * expected yes or no"), c then unchanged.
 */
int cgroupconf_load(const char *path, struct cgroupconf *c,
                    struct conf_diag *diag, struct err *e);
int cgroupconf_parse_string(const char *text, const char *name,
                            struct cgroupconf *c, struct conf_diag *diag,
                            struct err *e);

/* cgroupconf_plugin_name: "autodetect", "cgroup/v1", ... */
const char *cgroupconf_plugin_name(enum cgroupconf_plugin p);

#endif
