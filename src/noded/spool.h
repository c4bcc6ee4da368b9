/*
 * The node's spool (SlurmdSpoolDir): one directory job.<id>/ per job with
 * its script, supervisor.pid (with the leader and the boot id), an
 * optional kill deadline and, once the job ended, status: as few files as
 * may be, since each is an inode made and freed per job.  Files are
 * written to a temporary name and renamed, so a reader sees all or
 * nothing; fsynced where they must survive the machine (status).
 * Used by sluiced and by the supervisors it forks.
 */
#ifndef SLUICE_NODED_SPOOL_H
#define SLUICE_NODED_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "noded/stepusage.h"

/* How a job ended, as the supervisor saw it (the status file). */
struct spool_status {
    int exit_code; /* the exit status when it exited, else 0 */
    int signal;    /* the terminating signal, else 0 */
    int64_t start_time;
    int64_t end_time;
    bool oom; /* the OOM killer struck in the job's cgroup */
    /* it did not end of itself: the machine went down under it (its
     * spool is of an earlier boot); the controller counts the run lost
     * with the node, not failed */
    bool node_lost;
    /* the run: the launch's restart_count (said back with the end) */
    uint32_t restart_count;
    bool has_restart_count;
    bool has_usage;
    struct stepusage_task usage; /* the script's wait4 rusage (task 0) */
};

/* The supervisor of a running job: its pid and the start time of that
 * process (field 22 of /proc/PID/stat), so that a reused pid is told
 * apart. */
struct spool_pid {
    pid_t pid;
    unsigned long long start_ticks;
};

/* spool_expand: pattern with %n -> node and %h -> host (%% -> %).  New
 * string, caller frees. */
char *spool_expand(const char *pattern, const char *node, const char *host);

/* spool_mkdirs: create path (mode 0711: a job's user reaches their job's
 * directory by name) and its parents (0755), whatever the umask; an
 * existing path must belong to us and be writable by nobody else
 * (fsmode_mkdir), or e says how to fix it. */
int spool_mkdirs(const char *path, struct err *e);

/* spool_job_dir: "<spool>/job.<id>"; caller frees. */
char *spool_job_dir(const char *spool, uint32_t job_id);

/* spool_step_dir: "<spool>/step.<job>.<step>" (a step's directory:
 * launch.json, supervisor.pid, leader, pgid, tasks, ctl, usage, status);
 * caller frees. */
char *spool_step_dir(const char *spool, uint32_t job_id, uint32_t step_id);

/*
 * spool_write: write data to dir/name atomically (dir/.name.tmp, fsync,
 * rename, fsync dir) with mode; chown to uid:gid unless uid is -1.
 */
int spool_write(const char *dir, const char *name, const void *data, size_t len,
                mode_t mode, uid_t uid, gid_t gid, struct err *e);
/*
 * spool_write_volatile: the same without the fsyncs: atomic against a
 * crash of sluiced or a supervisor, not of the machine.  For what lives
 * only as long as the job's processes (the script, launch.json,
 * supervisor.pid, pgid, kill), which a crash of the machine takes with
 * it: a restarted sluiced removes a job directory it cannot read, and the
 * controller settles the job.  Keeps several milliseconds of fsync out of
 * every job's start (bench/RESULTS.md, start latency).
 */
int spool_write_volatile(const char *dir, const char *name, const void *data,
                         size_t len, mode_t mode, uid_t uid, gid_t gid,
                         struct err *e);

/*
 * spool_read: the contents of dir/name, NUL-terminated, at most max bytes
 * (EFBIG beyond).  New string, caller frees; NULL with errno (ENOENT when
 * absent) and e.
 */
char *spool_read(const char *dir, const char *name, size_t max, struct err *e);

/* spool_status_write / spool_status_read: the status file as JSON
 * {"exit_code", "signal", "start_time", "end_time", "oom", "usage"}
 * ("oom" may be absent: false; "usage", a USAGE object of one task, may
 * be absent: has_usage false).  Reading fails with
 * ENOENT when the job has not ended, EBADMSG when the file is damaged. */
int spool_status_write(const char *jobdir, const struct spool_status *st,
                       struct err *e);
/* spool_status_publish: the status written (renamed into place) without
 * waiting for the disk, and spool_status_sync: then made durable (fsync of
 * the file and the directory).  The supervisor publishes, tells sluiced,
 * then syncs: the end reaches the controller without two fsyncs in its
 * way, and the status is durable a moment later as before. */
int spool_status_publish(const char *jobdir, const struct spool_status *st,
                         struct err *e);
int spool_status_sync(const char *jobdir, struct err *e);
int spool_status_read(const char *jobdir, struct spool_status *st,
                      struct err *e);

/* spool_pid_self: this process as a struct spool_pid; spool_pid_of: any
 * process (-1 when it is gone). */
int spool_pid_of(pid_t pid, struct spool_pid *p);
int spool_pid_self(struct spool_pid *p);
/* spool_pid_alive: p names a live process that is the one recorded. */
bool spool_pid_alive(const struct spool_pid *p);
/* spool_pid_write / spool_pid_read: "PID START_TICKS\n" in
 * jobdir/supervisor.pid (written without fsync: spool_write_volatile). */
int spool_pid_write(const char *jobdir, const struct spool_pid *p,
                    struct err *e);
int spool_pid_read(const char *jobdir, struct spool_pid *p, struct err *e);
/* The same for another file: "leader" holds the job's first process,
 * whose pid is the job's process group (a pgid is signalled only while its
 * leader is still that process: spool_pid_alive). */
int spool_pid_write_as(const char *jobdir, const char *name,
                       const struct spool_pid *p, struct err *e);
int spool_pid_read_as(const char *jobdir, const char *name, struct spool_pid *p,
                      struct err *e);

/*
 * spool_pids_write: what a job's supervisor records of itself in one file,
 * jobdir/supervisor.pid: "PID START\nLEADER_PID LEADER_START\nBOOT_ID\n"
 * (boot_id "" or NULL: that line left out).  One file where there were
 * three (supervisor.pid, leader, boot_id): each file a job's directory
 * holds is an inode made and freed per job, the largest cost of a short
 * job on the node (bench/RESULTS.md, 2026-12-06).  spool_pid_read reads its
 * first line as before.  Written without fsync (spool_write_volatile).
 */
int spool_pids_write(const char *jobdir, const struct spool_pid *self,
                     const struct spool_pid *leader, const char *boot_id,
                     struct err *e);
/* spool_leader_read: the leader from supervisor.pid's second line, or from
 * jobdir/leader (a step's, or a job's of an older sluiced). */
int spool_leader_read(const char *jobdir, struct spool_pid *p, struct err *e);

/* The machine's boot id (/proc/sys/kernel/random/boot_id, 36 characters).
 * sluiced writes it to jobdir/boot_id at launch; pids, pgids and start
 * ticks recorded under another boot id name nothing of the job's. */
#define SPOOL_BOOT_ID_MAX 64
int spool_boot_id(char out[SPOOL_BOOT_ID_MAX], struct err *e);
/* spool_same_boot: 1 when the boot id recorded (supervisor.pid's third
 * line, or jobdir/boot_id) is boot_id, 0 when it is another (e says
 * which), -1 with errno when none can be read (ENOENT: a spool from before
 * boot ids were recorded). */
int spool_same_boot(const char *jobdir, const char *boot_id, struct err *e);

/* spool_int_write / spool_int_read: one decimal integer in jobdir/name
 * (pgid, kill: mode 0600; the preemption file, which the job reads: 0644;
 * written without fsync: spool_write_volatile). */
int spool_int_write(const char *jobdir, const char *name, int64_t v,
                    mode_t mode, struct err *e);
int spool_int_read(const char *jobdir, const char *name, int64_t *v,
                   struct err *e);

/*
 * spool_lock: flock jobdir itself.  sluiced holds this lock while it
 * writes a job's directory and forks its supervisor, and the supervisor
 * holds it until supervisor.pid is written, so that a directory without
 * supervisor.pid whose lock is free was left by a launch cut short.
 * Waits up to timeout_ms for another holder.  The directory's descriptor
 * (close it to unlock), or -1 with errno (EWOULDBLOCK: still held) and e.
 */
int spool_lock(const char *jobdir, int timeout_ms, struct err *e);

/* spool_remove: remove jobdir and the files in it; 0 when it is gone. */
int spool_remove(const char *jobdir);

/*
 * spool_list: the ids of the job.<id> directories in spool, ascending.
 * *ids is a new array (caller frees), *n its length.
 */
int spool_list(const char *spool, uint32_t **ids, size_t *n, struct err *e);

/* spool_step_list: the (job, step) of every step.<job>.<step> directory,
 * ordered; *ids new (caller frees). */
struct spool_step_id {
    uint32_t job_id, step_id;
};
int spool_step_list(const char *spool, struct spool_step_id **ids, size_t *n,
                    struct err *e);

#endif
