/*
 * Fair-share arithmetic on an association tree given as an array: tree
 * usage, normalised shares, classic effective usage and factor, and Fair
 * Tree's level fair-share and rank-based factor.  Pure.
 */
#include "sched/fairshare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The tree as child lists (CSR) and a top-down order. */
struct fs_tree {
    size_t root;
    size_t *first; /* n + 1 offsets into kids */
    size_t *kids;
    size_t *order;      /* parents before children */
    double *sib_shares; /* sum of shares_raw of a node's siblings, itself
                           included */
};

static void tree_free(struct fs_tree *t)
{
    free(t->first);
    free(t->kids);
    free(t->order);
    free(t->sib_shares);
}

static int tree_build(const struct fs_assoc *a, size_t n, struct fs_tree *t)
{
    size_t roots = 0, *fill, got = 0;

    memset(t, 0, sizeof(*t));
    for (size_t i = 0; i < n; i++) {
        if (a[i].parent == FS_NO_PARENT) {
            t->root = i;
            roots++;
        } else if (a[i].parent >= n || a[i].parent == i ||
                   a[a[i].parent].is_user) {
            return -1;
        }
    }
    if (roots != 1)
        return -1;
    t->first = xcalloc(n + 1, sizeof(*t->first));
    t->kids = xcalloc(n ? n : 1, sizeof(*t->kids));
    t->order = xcalloc(n, sizeof(*t->order));
    t->sib_shares = xcalloc(n, sizeof(*t->sib_shares));
    for (size_t i = 0; i < n; i++)
        if (i != t->root)
            t->first[a[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        t->first[i + 1] += t->first[i];
    fill = xcalloc(n, sizeof(*fill));
    for (size_t i = 0; i < n; i++)
        if (i != t->root)
            t->kids[t->first[a[i].parent] + fill[a[i].parent]++] = i;
    free(fill);
    /* breadth first from the root: whatever it misses lies on a cycle */
    t->order[got++] = t->root;
    for (size_t k = 0; k < got; k++) {
        size_t p = t->order[k];
        double sum = 0;
        for (size_t c = t->first[p]; c < t->first[p + 1]; c++)
            sum += a[t->kids[c]].shares_raw;
        for (size_t c = t->first[p]; c < t->first[p + 1]; c++) {
            t->sib_shares[t->kids[c]] = sum;
            t->order[got++] = t->kids[c];
        }
    }
    t->sib_shares[t->root] = a[t->root].shares_raw;
    return got == n ? 0 : -1;
}

/* Usage up the tree, shares and usage normalised, classic factor. */
static void classic(struct fs_assoc *a, size_t n, const struct fs_tree *t)
{
    double root_usage;

    for (size_t i = 0; i < n; i++)
        a[i].usage_tree = a[i].usage_raw;
    for (size_t k = n; k-- > 1;) {
        size_t i = t->order[k];
        a[a[i].parent].usage_tree += a[i].usage_tree;
    }
    root_usage = a[t->root].usage_tree;
    for (size_t k = 0; k < n; k++) {
        size_t i = t->order[k];
        struct fs_assoc *x = &a[i];
        double local =
            t->sib_shares[i] > 0 ? (double)x->shares_raw / t->sib_shares[i] : 0;
        x->usage_norm = root_usage > 0 ? x->usage_tree / root_usage : 0;
        if (i == t->root) {
            x->shares_norm = 1;
            x->usage_eff = x->usage_norm;
        } else if (a[x->parent].parent == FS_NO_PARENT) {
            x->shares_norm = local;
            x->usage_eff = x->usage_norm;
        } else {
            const struct fs_assoc *p = &a[x->parent];
            x->shares_norm = p->shares_norm * local;
            x->usage_eff =
                x->usage_norm + (p->usage_eff - x->usage_norm) * local;
        }
        x->factor =
            x->shares_norm > 0 ? exp2(-x->usage_eff / x->shares_norm) : 0;
    }
}

/* ---- Fair Tree -------------------------------------------------------- */

struct ranker {
    struct fs_assoc *a;
    const struct fs_tree *t;
    double users;
    double rank;
};

static int by_level_fs(const void *x, const void *y, void *arg)
{
    const struct fs_assoc *a = arg;
    double l = a[*(const size_t *)x].level_fs;
    double r = a[*(const size_t *)y].level_fs;

    if (l != r)
        return l > r ? -1 : 1;
    /* users before accounts among ties, then by position: stable */
    if (a[*(const size_t *)x].is_user != a[*(const size_t *)y].is_user)
        return a[*(const size_t *)x].is_user ? -1 : 1;
    return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* Rank a set of siblings (ties among accounts merge their children). */
static void rank_level(struct ranker *r, size_t *set, size_t n)
{
    struct fs_assoc *a = r->a;

    qsort_r(set, n, sizeof(*set), by_level_fs, a);
    for (size_t g = 0; g < n;) {
        size_t end = g, tied_users = 0, nkids = 0, *kids;
        while (end < n && a[set[end]].level_fs == a[set[g]].level_fs)
            end++;
        for (size_t k = g; k < end; k++) {
            if (a[set[k]].is_user) {
                a[set[k]].factor =
                    a[set[k]].shares_raw > 0 ? r->rank / r->users : 0;
                tied_users++;
            } else {
                nkids += r->t->first[set[k] + 1] - r->t->first[set[k]];
            }
        }
        r->rank -= (double)tied_users;
        if (nkids > 0) {
            size_t m = 0;
            kids = xcalloc(nkids, sizeof(*kids));
            for (size_t k = g; k < end; k++)
                for (size_t c = r->t->first[set[k]];
                     !a[set[k]].is_user && c < r->t->first[set[k] + 1]; c++)
                    kids[m++] = r->t->kids[c];
            rank_level(r, kids, nkids);
            free(kids);
        }
        g = end;
    }
}

static void fair_tree(struct fs_assoc *a, size_t n, const struct fs_tree *t)
{
    struct ranker r = {.a = a, .t = t};
    size_t nroot = t->first[t->root + 1] - t->first[t->root];
    size_t *set;

    for (size_t i = 0; i < n; i++) {
        double s, u;
        if (a[i].is_user)
            r.users++;
        if (i == t->root) {
            a[i].level_fs = INFINITY;
            continue;
        }
        s = t->sib_shares[i] > 0 ? a[i].shares_raw / t->sib_shares[i] : 0;
        u = a[a[i].parent].usage_tree > 0
                ? a[i].usage_tree / a[a[i].parent].usage_tree
                : 0;
        a[i].level_fs = s == 0 ? 0 : u == 0 ? INFINITY : s / u;
        a[i].factor = 0;
    }
    a[t->root].factor = 0;
    r.rank = r.users;
    if (nroot == 0)
        return;
    set = xcalloc(nroot, sizeof(*set));
    memcpy(set, &t->kids[t->first[t->root]], nroot * sizeof(*set));
    rank_level(&r, set, nroot);
    free(set);
}

int fs_compute(struct fs_assoc *a, size_t n, bool use_fair_tree)
{
    struct fs_tree t;

    if (n == 0)
        return 0;
    if (tree_build(a, n, &t) < 0) {
        tree_free(&t);
        errno = EINVAL;
        return -1;
    }
    classic(a, n, &t);
    if (use_fair_tree)
        fair_tree(a, n, &t);
    tree_free(&t);
    return 0;
}

double fs_decay(double usage, double dt_s, int64_t half_life_s)
{
    if (half_life_s <= 0 || dt_s <= 0)
        return usage;
    return usage * exp2(-dt_s / (double)half_life_s);
}

double fs_billing(const uint64_t tres[LIMITS_TRES_COUNT],
                  const double weights[LIMITS_TRES_COUNT], bool max_tres)
{
    double sum = 0, max = 0;
    bool any = false;

    for (int t = 0; t < LIMITS_TRES_COUNT; t++) {
        double v;
        if (t == LIMITS_TRES_BILLING || weights[t] <= 0)
            continue;
        any = true;
        v = weights[t] * (double)tres[t];
        sum += v;
        if (v > max)
            max = v;
    }
    if (!any)
        return (double)tres[LIMITS_TRES_CPU];
    return max_tres ? max : sum;
}

time_t fs_reset_next(enum fs_reset period, time_t t)
{
    struct tm tm;

    if (period == FS_RESET_NONE || period == FS_RESET_NOW)
        return 0;
    gmtime_r(&t, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    switch (period) {
    case FS_RESET_DAILY:
        tm.tm_mday += 1;
        break;
    case FS_RESET_WEEKLY:
        tm.tm_mday += 7 - tm.tm_wday;
        break;
    case FS_RESET_MONTHLY:
        tm.tm_mday = 1;
        tm.tm_mon += 1;
        break;
    case FS_RESET_QUARTERLY:
        tm.tm_mday = 1;
        tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
        break;
    default: /* FS_RESET_YEARLY */
        tm.tm_mday = 1;
        tm.tm_mon = 0;
        tm.tm_year += 1;
        break;
    }
    return timegm(&tm);
}
