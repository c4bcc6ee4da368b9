/*
 * Users as the jobs' processes need them — name, home, supplementary
 * groups — resolved by sluiced and kept for a few seconds per uid, so that
 * a job's process calls setgroups() instead of initgroups(), which loads
 * the NSS modules afresh in every new process (bench/RESULTS.md, start
 * latency).
 */
#include "noded/ucache.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct ucache {
    struct ucache_user *v;
    size_t n, cap;
    int ttl_s;
};

struct ucache *ucache_create(int ttl_s)
{
    struct ucache *c = xcalloc(1, sizeof(*c));

    c->ttl_s = ttl_s;
    return c;
}

static void user_clear(struct ucache_user *u)
{
    free(u->name);
    free(u->home);
    free(u->groups);
    memset(u, 0, sizeof(*u));
}

void ucache_destroy(struct ucache *c)
{
    int saved = errno;

    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++)
        user_clear(&c->v[i]);
    free(c->v);
    free(c);
    errno = saved;
}

/* getgrouplist into a new array: the groups of name, gid among them. */
static gid_t *group_list(const char *name, gid_t gid, size_t *n)
{
    int cnt = 16;
    gid_t *g = xcalloc((size_t)cnt, sizeof(*g));

    while (getgrouplist(name, gid, g, &cnt) < 0) {
        if (cnt <= 0 || cnt > 65536) {
            free(g);
            return NULL;
        }
        g = xreallocarray(g, (size_t)cnt, sizeof(*g));
    }
    *n = (size_t)cnt;
    return g;
}

/* Resolve uid into u (cleared first); -1 with errno when unknown. */
static int resolve(struct ucache_user *u, uid_t uid, gid_t gid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int rc = getpwuid_r(uid, &pw, buf, sizeof(buf), &res);

    if (res == NULL) {
        errno = rc ? rc : ENOENT;
        return -1;
    }
    u->uid = uid;
    u->gid = gid;
    u->name = xstrdup(pw.pw_name);
    u->home = xstrdup(pw.pw_dir);
    if ((u->groups = group_list(pw.pw_name, gid, &u->n_groups)) == NULL) {
        user_clear(u);
        errno = EOVERFLOW;
        return -1;
    }
    return 0;
}

const struct ucache_user *ucache_get(struct ucache *c, uid_t uid, gid_t gid,
                                     time_t now, struct err *e)
{
    struct ucache_user *u = NULL, fresh = {0};

    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].uid == uid && c->v[i].gid == gid)
            u = &c->v[i];
    if (u != NULL && now < u->expires && now >= u->expires - c->ttl_s)
        return u;
    if (resolve(&fresh, uid, gid) < 0) {
        err_set(e, "cannot resolve uid %u: %s", (unsigned)uid,
                errno == ENOENT ? "unknown user" : strerror(errno));
        return NULL;
    }
    fresh.expires = now + c->ttl_s;
    if (u == NULL) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 8;
            c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
        }
        u = &c->v[c->n++];
    } else {
        user_clear(u);
    }
    *u = fresh;
    return u;
}
