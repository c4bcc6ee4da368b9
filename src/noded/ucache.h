/*
 * The jobs' users as sluiced resolved them (name, home, supplementary
 * groups), cached per uid and primary gid for ttl_s seconds: a job's
 * process then calls setgroups() with the list instead of initgroups().
 * A change to /etc/group reaches new jobs within ttl_s.
 */
#ifndef SLUICE_NODED_UCACHE_H
#define SLUICE_NODED_UCACHE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "common/err.h"

struct ucache_user {
    uid_t uid;
    gid_t gid;     /* the job's primary group, as the launch asked */
    char *name;    /* pw_name */
    char *home;    /* pw_dir */
    gid_t *groups; /* getgrouplist(name, gid): gid is among them */
    size_t n_groups;
    time_t expires; /* resolved again from then on */
};

/* ucache_create: an empty cache whose entries live ttl_s seconds; free
 * with ucache_destroy (NULL is fine). */
struct ucache *ucache_create(int ttl_s);
void ucache_destroy(struct ucache *c);

/*
 * ucache_get: the user uid with primary group gid, from the cache when
 * resolved less than ttl_s ago (and not in the future: a clock that went
 * back resolves again), else resolved now (getpwuid_r, getgrouplist).
 * The entry belongs to the cache and stays valid until the next call.
 * NULL with errno and e ("cannot resolve uid 1001: unknown user").
 */
const struct ucache_user *ucache_get(struct ucache *c, uid_t uid, gid_t gid,
                                     time_t now, struct err *e);

#endif
