/*
 * The accounting model's records and lookups, its load from the store and
 * the records Slurm always has (cluster, root, normal).  The requests that
 * change it are in acct_ops.c; JSON forms in acct_json.c.
 */
#include "ctld/acct/acct_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"

/* ---- small containers ------------------------------------------------- */

void acct_vec_push(struct acct_vec *v, void *x)
{
    v->v = xreallocarray(v->v, v->n + 1, sizeof(*v->v));
    v->v[v->n++] = x;
}

bool acct_vec_remove(struct acct_vec *v, const void *x)
{
    for (size_t i = 0; i < v->n; i++) {
        if (v->v[i] == x) {
            memmove(&v->v[i], &v->v[i + 1], (v->n - i - 1) * sizeof(*v->v));
            v->n--;
            return true;
        }
    }
    return false;
}

void acct_vec_replace(struct acct_vec *v, const void *x, void *y)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == x)
            v->v[i] = y;
}

char **acct_strv_dup(char *const *v, size_t n)
{
    char **out = n ? xcalloc(n, sizeof(*out)) : NULL;

    for (size_t i = 0; i < n; i++)
        out[i] = xstrdup(v[i]);
    return out;
}

void acct_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

bool acct_strv_has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

void acct_strv_add(char ***v, size_t *n, const char *s)
{
    if (acct_strv_has(*v, *n, s))
        return;
    *v = xreallocarray(*v, *n + 1, sizeof(**v));
    (*v)[(*n)++] = xstrdup(s);
}

void acct_strv_del(char **v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(v[i], s) == 0) {
            free(v[i]);
            memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
            (*n)--;
            return;
        }
    }
}

char *acct_strv_join(char *const *v, size_t n)
{
    size_t len = 1;
    char *out;

    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    out = xcalloc(1, len);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            strcat(out, ",");
        strcat(out, v[i]);
    }
    return out;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* ---- records ----------------------------------------------------------- */

struct acct_qos *acct_qos_new(const char *name)
{
    struct acct_qos *q = xcalloc(1, sizeof(*q));

    q->name = xstrdup(name);
    q->description = xstrdup(name);
    q->preempt_mode = ACCT_PREEMPT_CLUSTER;
    q->preempt_exempt_time_s = ACCT_TIME_UNSET;
    q->usage_factor = 1.0;
    limits_init(&q->limits);
    return q;
}

struct acct_qos *acct_qos_dup(const struct acct_qos *q)
{
    struct acct_qos *d = xmalloc(sizeof(*d));

    *d = *q;
    d->name = xstrdup(q->name);
    d->description = xstrdup(q->description);
    d->preempt = acct_strv_dup(q->preempt, q->n_preempt);
    return d;
}

void acct_qos_free(struct acct_qos *q)
{
    if (q == NULL)
        return;
    free(q->name);
    free(q->description);
    acct_strv_free(q->preempt, q->n_preempt);
    free(q);
}

struct acct_assoc *acct_assoc_new(const char *cluster, const char *account,
                                  const char *user, const char *partition)
{
    struct acct_assoc *as = xcalloc(1, sizeof(*as));

    as->cluster = xstrdup(cluster);
    as->account = xstrdup(account);
    as->user = dup_or_null(user);
    as->partition = dup_or_null(partition);
    as->shares = 1;
    limits_init(&as->limits);
    return as;
}

struct acct_assoc *acct_assoc_dup(const struct acct_assoc *as)
{
    struct acct_assoc *d = xmalloc(sizeof(*d));

    *d = *as;
    d->cluster = xstrdup(as->cluster);
    d->account = xstrdup(as->account);
    d->user = dup_or_null(as->user);
    d->partition = dup_or_null(as->partition);
    d->default_qos = dup_or_null(as->default_qos);
    d->qos = acct_strv_dup(as->qos, as->n_qos);
    return d;
}

void acct_assoc_free(struct acct_assoc *as)
{
    if (as == NULL)
        return;
    free(as->cluster);
    free(as->account);
    free(as->user);
    free(as->partition);
    free(as->default_qos);
    acct_strv_free(as->qos, as->n_qos);
    free(as);
}

struct acct_user *acct_user_new(const char *name, const char *def_account)
{
    struct acct_user *u = xcalloc(1, sizeof(*u));

    u->name = xstrdup(name);
    u->default_account = xstrdup(def_account);
    return u;
}

struct acct_user *acct_user_dup(const struct acct_user *u)
{
    struct acct_user *d = acct_user_new(u->name, u->default_account);

    d->admin = u->admin;
    return d;
}

void acct_user_free(struct acct_user *u)
{
    if (u == NULL)
        return;
    free(u->name);
    free(u->default_account);
    free(u);
}

struct acct_account *acct_account_new(const char *name, const char *parent)
{
    struct acct_account *ac = xcalloc(1, sizeof(*ac));

    ac->name = xstrdup(name);
    ac->description = xstrdup(name);
    ac->organization = xstrdup(parent ? parent : name);
    ac->parent = dup_or_null(parent);
    return ac;
}

struct acct_account *acct_account_dup(const struct acct_account *ac)
{
    struct acct_account *d = xcalloc(1, sizeof(*d));

    d->name = xstrdup(ac->name);
    d->description = xstrdup(ac->description);
    d->organization = xstrdup(ac->organization);
    d->parent = dup_or_null(ac->parent);
    return d;
}

void acct_account_free(struct acct_account *ac)
{
    if (ac == NULL)
        return;
    free(ac->name);
    free(ac->description);
    free(ac->organization);
    free(ac->parent);
    free(ac);
}

struct acct_cluster *acct_cluster_new(const char *name)
{
    struct acct_cluster *c = xcalloc(1, sizeof(*c));

    c->name = xstrdup(name);
    return c;
}

void acct_cluster_free(struct acct_cluster *c)
{
    if (c == NULL)
        return;
    free(c->name);
    free(c);
}

void acct_record_free(enum acct_kind k, void *x)
{
    switch (k) {
    case ACCT_KIND_CLUSTER:
        acct_cluster_free(x);
        break;
    case ACCT_KIND_ACCOUNT:
        acct_account_free(x);
        break;
    case ACCT_KIND_USER:
        acct_user_free(x);
        break;
    case ACCT_KIND_ASSOC:
        acct_assoc_free(x);
        break;
    case ACCT_KIND_QOS:
        acct_qos_free(x);
        break;
    case ACCT_KIND_COUNT:
        break;
    }
}

/* ---- lookups ------------------------------------------------------------ */

static bool same(const char *x, const char *y)
{
    return x == NULL ? y == NULL : y != NULL && strcmp(x, y) == 0;
}

const struct acct_qos *acct_qos_find(const struct acct *a, const char *name)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_QOS];

    for (size_t i = 0; name != NULL && i < v->n; i++) {
        const struct acct_qos *q = v->v[i];
        if (strcmp(q->name, name) == 0)
            return q;
    }
    return NULL;
}

const struct acct_qos *acct_qos_find_id(const struct acct *a, uint32_t id)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_QOS];

    for (size_t i = 0; i < v->n; i++) {
        const struct acct_qos *q = v->v[i];
        if (q->id == id)
            return q;
    }
    return NULL;
}

const struct acct_user *acct_user_find(const struct acct *a, const char *name)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_USER];

    for (size_t i = 0; name != NULL && i < v->n; i++) {
        const struct acct_user *u = v->v[i];
        if (strcmp(u->name, name) == 0)
            return u;
    }
    return NULL;
}

const struct acct_account *acct_account_find(const struct acct *a,
                                             const char *name)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_ACCOUNT];

    for (size_t i = 0; name != NULL && i < v->n; i++) {
        const struct acct_account *ac = v->v[i];
        if (strcmp(ac->name, name) == 0)
            return ac;
    }
    return NULL;
}

struct acct_cluster *acct_cluster_find(const struct acct *a, const char *name)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_CLUSTER];

    for (size_t i = 0; i < v->n; i++) {
        struct acct_cluster *c = v->v[i];
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

struct acct_assoc *acct_find_assoc_exact(const struct acct *a,
                                         const char *cluster,
                                         const char *account, const char *user,
                                         const char *partition)
{
    const struct acct_vec *v = &a->vec[ACCT_KIND_ASSOC];

    for (size_t i = 0; i < v->n; i++) {
        struct acct_assoc *as = v->v[i];
        if (strcmp(as->account, account) == 0 && same(as->user, user) &&
            same(as->partition, partition) && strcmp(as->cluster, cluster) == 0)
            return as;
    }
    return NULL;
}

const struct acct_assoc *acct_account_assoc(const struct acct *a,
                                            const char *account)
{
    return account ? acct_find_assoc_exact(a, a->cluster, account, NULL, NULL)
                   : NULL;
}

const struct acct_assoc *acct_assoc_find(const struct acct *a, const char *user,
                                         const char *account,
                                         const char *partition)
{
    const struct acct_assoc *as = NULL;

    if (user == NULL || account == NULL)
        return NULL;
    if (partition != NULL)
        as = acct_find_assoc_exact(a, a->cluster, account, user, partition);
    if (as == NULL)
        as = acct_find_assoc_exact(a, a->cluster, account, user, NULL);
    return as;
}

bool acct_user_is_admin(const struct acct *a, const char *user)
{
    const struct acct_user *u = acct_user_find(a, user);

    return u != NULL && u->admin == ACCT_ADMIN_ADMIN;
}

enum acct_admin acct_user_admin_uid(const struct acct *a, uid_t uid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    const struct acct_user *u;

    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
        return ACCT_ADMIN_NONE;
    u = acct_user_find(a, pw.pw_name);
    return u ? u->admin : ACCT_ADMIN_NONE;
}

char *const *acct_assoc_qos_list(const struct acct_assoc *as, size_t *n)
{
    for (; as != NULL; as = as->parent) {
        if (as->n_qos > 0) {
            *n = as->n_qos;
            return as->qos;
        }
    }
    *n = 0;
    return NULL;
}

bool acct_assoc_qos_allowed(const struct acct_assoc *as, const char *qos)
{
    size_t n;
    char *const *v = acct_assoc_qos_list(as, &n);

    return acct_strv_has(v, n, qos);
}

const char *acct_assoc_default_qos(const struct acct_assoc *as)
{
    for (; as != NULL; as = as->parent)
        if (as->default_qos != NULL)
            return as->default_qos;
    return NULL;
}

uint32_t acct_assoc_shares(const struct acct_assoc *as)
{
    for (; as != NULL; as = as->parent)
        if (as->shares != ACCT_SHARES_PARENT)
            return as->shares;
    return 1;
}

/* ---- iteration and names ------------------------------------------------ */

static const void *at(const struct acct *a, enum acct_kind k, size_t i)
{
    return i < a->vec[k].n ? a->vec[k].v[i] : NULL;
}

const struct acct_qos *acct_qos_at(const struct acct *a, size_t i)
{
    return at(a, ACCT_KIND_QOS, i);
}

const struct acct_assoc *acct_assoc_at(const struct acct *a, size_t i)
{
    return at(a, ACCT_KIND_ASSOC, i);
}

const struct acct_user *acct_user_at(const struct acct *a, size_t i)
{
    return at(a, ACCT_KIND_USER, i);
}

const struct acct_account *acct_account_at(const struct acct *a, size_t i)
{
    return at(a, ACCT_KIND_ACCOUNT, i);
}

const struct acct_cluster *acct_cluster_at(const struct acct *a, size_t i)
{
    return at(a, ACCT_KIND_CLUSTER, i);
}

uint64_t acct_generation(const struct acct *a)
{
    return a->gen;
}

const char *acct_cluster_name(const struct acct *a)
{
    return a->cluster;
}

static const char *const admin_names[] = {"None", "Operator", "Administrator"};

const char *acct_admin_name(enum acct_admin l)
{
    return (unsigned)l <= ACCT_ADMIN_ADMIN ? admin_names[l] : "?";
}

int acct_admin_parse(const char *s, enum acct_admin *out)
{
    for (int i = 0; i <= ACCT_ADMIN_ADMIN; i++) {
        if (strcasecmp(s, admin_names[i]) == 0) {
            *out = (enum acct_admin)i;
            return 0;
        }
    }
    if (strcasecmp(s, "Admin") == 0) {
        *out = ACCT_ADMIN_ADMIN;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

/* ---- saving and relinking ----------------------------------------------- */

void acct_changed(struct acct *a)
{
    struct acct_vec *v = &a->vec[ACCT_KIND_ASSOC];

    for (size_t i = 0; i < v->n; i++) {
        struct acct_assoc *as = v->v[i];
        const struct acct_account *ac;

        as->parent = NULL;
        if (as->user != NULL || as->partition != NULL) {
            as->parent =
                acct_find_assoc_exact(a, as->cluster, as->account, NULL, NULL);
            continue;
        }
        ac = acct_account_find(a, as->account);
        if (ac != NULL && ac->parent != NULL)
            as->parent =
                acct_find_assoc_exact(a, as->cluster, ac->parent, NULL, NULL);
    }
    a->gen++;
}

static json_t *record_json(const struct acct *a, enum acct_kind k,
                           const void *x, char *key, size_t keylen)
{
    switch (k) {
    case ACCT_KIND_CLUSTER:
        snprintf(key, keylen, "%s", ((const struct acct_cluster *)x)->name);
        return acct_cluster_to_json(x);
    case ACCT_KIND_ACCOUNT:
        snprintf(key, keylen, "%s", ((const struct acct_account *)x)->name);
        return acct_account_to_json(x);
    case ACCT_KIND_USER:
        snprintf(key, keylen, "%s", ((const struct acct_user *)x)->name);
        return acct_user_to_json(a, x);
    case ACCT_KIND_ASSOC:
        snprintf(key, keylen, "%" PRIu32, ((const struct acct_assoc *)x)->id);
        return acct_assoc_to_json(x);
    case ACCT_KIND_QOS:
        snprintf(key, keylen, "%s", ((const struct acct_qos *)x)->name);
        return acct_qos_to_json(x);
    case ACCT_KIND_COUNT:
        break;
    }
    return NULL;
}

int acct_save(struct acct *a, enum acct_kind kind, const void *x, struct err *e)
{
    char key[1024];
    json_t *o;
    char *text;
    int rc;

    if (a->store == NULL)
        return 0;
    o = record_json(a, kind, x, key, sizeof(key));
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (text == NULL)
        fatalx("out of memory encoding an accounting record");
    rc = acct_store_put(a->store, kind, key, text, e);
    free(text);
    return rc;
}

int acct_unsave(struct acct *a, enum acct_kind kind, const void *x,
                struct err *e)
{
    char key[1024];
    json_t *o;

    if (a->store == NULL)
        return 0;
    o = record_json(a, kind, x, key, sizeof(key));
    json_decref(o);
    return acct_store_del(a->store, kind, key, e);
}

/* ---- load and defaults -------------------------------------------------- */

struct load_ctx {
    struct acct *a;
    enum acct_kind kind;
    struct err *e;
};

static void *record_from_json(enum acct_kind k, json_t *o, struct err *e)
{
    switch (k) {
    case ACCT_KIND_CLUSTER:
        return acct_cluster_from_json(o, e);
    case ACCT_KIND_ACCOUNT:
        return acct_account_from_json(o, e);
    case ACCT_KIND_USER:
        return acct_user_from_json(o, e);
    case ACCT_KIND_ASSOC:
        return acct_assoc_from_json(o, e);
    case ACCT_KIND_QOS:
        return acct_qos_from_json(o, e);
    case ACCT_KIND_COUNT:
        break;
    }
    return NULL;
}

static int load_one(void *arg, const char *key, const char *record)
{
    struct load_ctx *lc = arg;
    json_error_t je;
    json_t *o = json_loads(record, 0, &je);
    void *x;

    if (o == NULL) {
        errno = EINVAL;
        return err_set(lc->e, "accounting record %s: %s", key, je.text);
    }
    x = record_from_json(lc->kind, o, lc->e);
    json_decref(o);
    if (x == NULL)
        return err_prefix(lc->e, "accounting record %s", key);
    if (lc->kind == ACCT_KIND_QOS &&
        ((struct acct_qos *)x)->id >= lc->a->next_qos_id)
        lc->a->next_qos_id = ((struct acct_qos *)x)->id + 1;
    if (lc->kind == ACCT_KIND_ASSOC &&
        ((struct acct_assoc *)x)->id >= lc->a->next_assoc_id)
        lc->a->next_assoc_id = ((struct acct_assoc *)x)->id + 1;
    acct_vec_push(&lc->a->vec[lc->kind], x);
    return 0;
}

static int add_defaults(struct acct *a, struct err *e)
{
    struct acct_assoc *root;

    if (acct_cluster_find(a, a->cluster) == NULL) {
        struct acct_cluster *c = acct_cluster_new(a->cluster);
        acct_vec_push(&a->vec[ACCT_KIND_CLUSTER], c);
        if (acct_save(a, ACCT_KIND_CLUSTER, c, e) < 0)
            return -1;
    }
    if (acct_qos_find(a, "normal") == NULL && a->next_qos_id == 1) {
        struct acct_qos *q = acct_qos_new("normal");
        free(q->description);
        q->description = xstrdup("Normal QOS default");
        q->id = a->next_qos_id++;
        acct_vec_push(&a->vec[ACCT_KIND_QOS], q);
        if (acct_save(a, ACCT_KIND_QOS, q, e) < 0)
            return -1;
    }
    if (acct_account_find(a, "root") == NULL) {
        struct acct_account *ac = acct_account_new("root", NULL);
        free(ac->description);
        ac->description = xstrdup("default root account");
        acct_vec_push(&a->vec[ACCT_KIND_ACCOUNT], ac);
        if (acct_save(a, ACCT_KIND_ACCOUNT, ac, e) < 0)
            return -1;
    }
    if (acct_find_assoc_exact(a, a->cluster, "root", NULL, NULL) == NULL) {
        root = acct_assoc_new(a->cluster, "root", NULL, NULL);
        root->id = a->next_assoc_id++;
        acct_strv_add(&root->qos, &root->n_qos, "normal");
        root->default_qos = xstrdup("normal");
        acct_vec_push(&a->vec[ACCT_KIND_ASSOC], root);
        if (acct_save(a, ACCT_KIND_ASSOC, root, e) < 0)
            return -1;
    }
    if (acct_user_find(a, "root") == NULL) {
        struct acct_user *u = acct_user_new("root", "root");
        u->admin = ACCT_ADMIN_ADMIN;
        acct_vec_push(&a->vec[ACCT_KIND_USER], u);
        if (acct_save(a, ACCT_KIND_USER, u, e) < 0)
            return -1;
    }
    if (acct_find_assoc_exact(a, a->cluster, "root", "root", NULL) == NULL) {
        struct acct_assoc *as =
            acct_assoc_new(a->cluster, "root", "root", NULL);
        as->id = a->next_assoc_id++;
        acct_vec_push(&a->vec[ACCT_KIND_ASSOC], as);
        if (acct_save(a, ACCT_KIND_ASSOC, as, e) < 0)
            return -1;
    }
    return 0;
}

bool acct_is_operator(const struct acct *a, uid_t uid)
{
    /* operators may manage anyone's jobs, as in Slurm */
    return uid == 0 || uid == geteuid() ||
           (a != NULL && acct_user_admin_uid(a, uid) >= ACCT_ADMIN_OPERATOR);
}

bool acct_is_administrator(const struct acct *a, uid_t uid)
{
    /* what Slurm keeps from operators: partitions, job priorities */
    return uid == 0 || uid == geteuid() ||
           (a != NULL && acct_user_admin_uid(a, uid) >= ACCT_ADMIN_ADMIN);
}

struct acct *acct_create(const char *cluster, struct acct_store *store,
                         struct err *e)
{
    struct acct *a = xcalloc(1, sizeof(*a));

    a->cluster = xstrdup(cluster && *cluster ? cluster : "cluster");
    a->store = store;
    a->next_qos_id = 1;
    a->next_assoc_id = 1;
    for (int k = 0; store != NULL && k < ACCT_KIND_COUNT; k++) {
        struct load_ctx lc = {a, (enum acct_kind)k, e};
        if (acct_store_load(store, (enum acct_kind)k, load_one, &lc, e) < 0)
            goto error;
    }
    if (add_defaults(a, e) < 0)
        goto error;
    acct_changed(a);
    a->gen = 1;
    log_info("acct cluster=%s qos=%zu accounts=%zu users=%zu assocs=%zu",
             a->cluster, a->vec[ACCT_KIND_QOS].n, a->vec[ACCT_KIND_ACCOUNT].n,
             a->vec[ACCT_KIND_USER].n, a->vec[ACCT_KIND_ASSOC].n);
    return a;
error:
    acct_destroy(a);
    return NULL;
}

void acct_destroy(struct acct *a)
{
    int saved = errno;

    if (a == NULL)
        return;
    for (int k = 0; k < ACCT_KIND_COUNT; k++) {
        for (size_t i = 0; i < a->vec[k].n; i++)
            acct_record_free((enum acct_kind)k, a->vec[k].v[i]);
        free(a->vec[k].v);
    }
    free(a->cluster);
    free(a);
    errno = saved;
}
