/*
 * Whether a local cluster's directory can be trusted (local_dir_check):
 * `sluice up` runs daemons as the caller, root included, on whatever it
 * finds there, so everything it reads or writes must be the caller's.
 */
#include "cli/local.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsmode.h"
#include "common/xalloc.h"

/* nftw's callback has no argument: the walk's error goes here */
static struct err *walk_err;

/* A job's script, given to the job's user by sluiced (spool.c): the one
 * file in the tree that is not the caller's. */
static bool job_script(const char *path, const struct stat *st)
{
    const char *base = strrchr(path, '/');

    return S_ISREG(st->st_mode) && base != NULL &&
           strcmp(base, "/script") == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int walk_one(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    struct stat now;

    (void)ftw;
    /* Daemons of the cluster still running (up restarts only the missing
     * ones) remove job directories while the walk goes on: what is gone
     * can no longer be trusted wrongly.  errno is still the failed stat's
     * or opendir's: gone then, the entry is skipped even when a directory
     * of the same name is there again by now (a new one, which the next
     * check sees). */
    if ((flag == FTW_NS || flag == FTW_DNR) &&
        (errno == ENOENT || (lstat(path, &now) < 0 && errno == ENOENT)))
        return 0;
    /* 1 stops the walk with walk_err set (nftw's own failures are -1) */
    if (flag == FTW_NS || flag == FTW_DNR) {
        err_set(walk_err, "cannot read %s: %s", path, strerror(errno));
        return 1;
    }
    if (flag == FTW_SL || S_ISLNK(st->st_mode)) {
        errno = ELOOP;
        err_set(walk_err, "%s is a symbolic link: remove it", path);
        return 1;
    }
    if (S_ISDIR(st->st_mode))
        return fsmode_check_stat(path, st, true, walk_err) < 0;
    if (S_ISSOCK(st->st_mode) && st->st_uid == geteuid())
        return 0; /* a daemon's socket: replaced at start */
    if (st->st_uid != geteuid() && job_script(path, st))
        return 0;
    return fsmode_check_stat(path, st, false, walk_err) < 0;
}

/* The walk of path again while nftw itself fails with ENOENT: a running
 * node daemon removed a job's directory between nftw's listing of the
 * spool and its opening of that directory (nftw gives up there rather
 * than pass it to walk_one).  The tree is whole again at the next walk. */
#define CHECK_TREE_TRIES 50

static int check_tree(const char *path, struct err *e)
{
    int rc;

    for (int i = 0;; i++) {
        walk_err = e;
        rc = nftw(path, walk_one, 16, FTW_PHYS);
        walk_err = NULL;
        if (rc >= 0)
            return rc == 0 ? 0 : -1; /* walk_one's refusal is in e */
        if (errno != ENOENT || i + 1 >= CHECK_TREE_TRIES)
            return err_set(e, "cannot walk %s: %s", path, strerror(errno));
    }
}

/* A file of DIR: absent, or the caller's and writable by nobody else. */
static int check_file(const char *path, struct err *e)
{
    struct stat st;

    if (lstat(path, &st) < 0 && errno == ENOENT)
        return 0;
    return fsmode_check(path, false, e);
}

int local_dir_check(const struct local_dir *d, struct err *e)
{
    const char *trees[] = {d->state, d->spool, d->log, d->pids};
    /* cgroup.conf: sluiced reads one beside sluice.conf */
    char *cgroup = xasprintf("%s/cgroup.conf", d->dir);
    const char *files[] = {d->conf, d->gres, d->key, cgroup};
    int rc = 0;

    if (fsmode_check(d->dir, true, e) < 0)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < sizeof(files) / sizeof(files[0]); i++)
        rc = check_file(files[i], e);
    free(cgroup);
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
        if (check_tree(trees[i], e) < 0)
            return -1;
    return 0;
}
