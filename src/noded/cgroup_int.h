/*
 * Internals shared by cgroup.c, cgroup_job.c and cgroup_bpf.c.  Not for
 * other modules.
 */
#ifndef SLUICE_NODED_CGROUP_INT_H
#define SLUICE_NODED_CGROUP_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/* cgroup_file_write: write val to dir/file (which must exist); -1 with
 * errno and e ("cannot write 1 to .../cgroup.kill: ..."). */
int cgroup_file_write(const char *dir, const char *file, const char *val,
                      struct err *e);

/* cgroup_file_read: the contents of dir/file (at most 64 KiB), NUL
 * terminated; a new string (caller frees), or NULL with errno. */
char *cgroup_file_read(const char *dir, const char *file);

/* cgroup_dir_pids: the processes in dir/cgroup.procs; *pids new (caller
 * frees), *n its length; -1 with errno when it cannot be read. */
int cgroup_dir_pids(const char *dir, pid_t **pids, size_t *n);

/* cgroup_pool_drain: remove the v1 cgroups kept for the next job
 * (free_<id>), before the node's own cgroup is removed. */
struct cgroup;
void cgroup_pool_drain(const struct cgroup *cg);

#endif
