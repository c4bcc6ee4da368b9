/*
 * MODIFY, DELETE and LIST requests of the accounting model: records chosen
 * by where conditions (Slurm's keys), changed as copies in a plan and
 * swapped in only when the whole request is valid.
 */
#include "ctld/acct/acct_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

#define ALIASES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define W_NAME ALIASES("Name", "Names")
#define W_ID ALIASES("ID", "IDs")
#define W_USER ALIASES("User", "Users")
#define W_ACCOUNT ALIASES("Account", "Accounts", "Acct")
#define W_PART ALIASES("Partition", "Partitions")
#define W_CLUSTER ALIASES("Cluster", "Clusters")

static const char *const V_QOS[] = {"Name", "Names", "ID", "IDs", NULL};
static const char *const V_USER[] = {
    "Name",     "Names",          "User",       "Users",      "Account",
    "Accounts", "Acct",           "Partition",  "Partitions", "Cluster",
    "Clusters", "DefaultAccount", "AdminLevel", NULL};
static const char *const V_ACCOUNT[] = {
    "Name",    "Names",    "Account",     "Accounts",     "Acct", "Parent",
    "Cluster", "Clusters", "Description", "Organization", NULL};
static const char *const V_ASSOC[] = {
    "Account",    "Accounts", "Acct",     "User", "Users", "Partition",
    "Partitions", "Cluster",  "Clusters", "ID",   "IDs",   NULL};
static const char *const V_CLUSTER[] = {"Name", "Names", "Cluster", "Clusters",
                                        NULL};

static bool qos_match(json_t *w, const struct acct_qos *q)
{
    char id[16];

    snprintf(id, sizeof(id), "%" PRIu32, q->id);
    return acct_where_has(acct_where(w, W_NAME), q->name) &&
           acct_where_has(acct_where(w, W_ID), id);
}

static bool user_match(json_t *w, const struct acct_user *u)
{
    const char *names = acct_where(w, W_NAME);

    if (names == NULL)
        names = acct_where(w, W_USER);
    return acct_where_has(names, u->name) &&
           acct_where_has(acct_where(w, ALIASES("DefaultAccount")),
                          u->default_account) &&
           acct_where_has(acct_where(w, ALIASES("AdminLevel")),
                          acct_admin_name(u->admin));
}

static bool account_match(json_t *w, const struct acct_account *ac)
{
    const char *names = acct_where(w, W_NAME);

    if (names == NULL)
        names = acct_where(w, W_ACCOUNT);
    return acct_where_has(names, ac->name) &&
           acct_where_has(acct_where(w, ALIASES("Parent")),
                          ac->parent ? ac->parent : "") &&
           acct_where_has(acct_where(w, ALIASES("Description")),
                          ac->description) &&
           acct_where_has(acct_where(w, ALIASES("Organization")),
                          ac->organization);
}

/* An association against Account/User/Partition/Cluster/ID; a where on
 * User or Partition never matches an association without one. */
static bool assoc_match(json_t *w, const struct acct_assoc *as)
{
    char id[16];

    snprintf(id, sizeof(id), "%" PRIu32, as->id);
    return acct_where_has(acct_where(w, W_ACCOUNT), as->account) &&
           acct_where_has(acct_where(w, W_USER), as->user) &&
           acct_where_has(acct_where(w, W_PART), as->partition) &&
           acct_where_has(acct_where(w, W_CLUSTER), as->cluster) &&
           acct_where_has(acct_where(w, W_ID), id);
}

static bool cluster_match(json_t *w, const struct acct_cluster *c)
{
    const char *names = acct_where(w, W_NAME);

    if (names == NULL)
        names = acct_where(w, W_CLUSTER);
    return acct_where_has(names, c->name);
}

static const char *const *valid_where(const char *entity)
{
    if (strcmp(entity, "qos") == 0)
        return V_QOS;
    if (strcmp(entity, "user") == 0)
        return V_USER;
    if (strcmp(entity, "account") == 0)
        return V_ACCOUNT;
    if (strcmp(entity, "association") == 0)
        return V_ASSOC;
    if (strcmp(entity, "cluster") == 0)
        return V_CLUSTER;
    return NULL;
}

static int check_req(const struct acct_req *r, bool need_set, struct err *e)
{
    const char *const *valid = valid_where(r->entity);

    if (valid == NULL)
        return acct_bad(e, "Unknown entity: %.64s", r->entity);
    if (acct_where_check(r->entity, r->where, valid, e) < 0)
        return -1;
    if (need_set && (!json_is_array(r->set) || json_array_size(r->set) == 0))
        return acct_bad(e, "modify %s: nothing to set", r->entity);
    return 0;
}

/* ---- MODIFY ------------------------------------------------------------- */

/* The copy of an association in the plan, made on first use. */
static struct acct_assoc *assoc_copy(struct acct_plan *p,
                                     const struct acct_assoc *as)
{
    struct acct_assoc *c = acct_plan_new_of(p, as);

    if (c == NULL) {
        c = acct_assoc_dup(as);
        acct_plan_add(p, ACCT_KIND_ASSOC, (void *)as, c);
        acct_plan_line(p, "  C = %-15s A = %-15s U = %-10s%s%s", as->cluster,
                       as->account, as->user ? as->user : "",
                       as->partition ? " P = " : "",
                       as->partition ? as->partition : "");
    }
    return c;
}

/* Apply every association key of set to as's copy; *applied counts them.
 * Keys that are not association keys are skipped (the caller knows). */
static int assoc_keys(const struct acct *a, const struct acct_req *r,
                      struct acct_plan *p, const struct acct_assoc *as,
                      struct err *e)
{
    struct acct_assoc *c = NULL;

    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        struct acct_assoc *scratch = acct_assoc_new("", "", NULL, NULL);
        int rc = acct_set_item(r->set, k, &key, &op, &val, e) < 0
                     ? -1
                     : acct_set_assoc(a, scratch, key, op, val, e);
        acct_assoc_free(scratch);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (c == NULL)
            c = assoc_copy(p, as);
        if (acct_set_assoc(a, c, key, op, val, e) < 0)
            return -1;
    }
    return c ? acct_assoc_check(c, c->parent, e) : 0;
}

/* Is key an association key?  (Tried on a scratch record.) */
static bool is_assoc_key(const struct acct *a, const char *key, const char *op,
                         const char *val)
{
    struct acct_assoc *s = acct_assoc_new("", "", NULL, NULL);
    int rc = acct_set_assoc(a, s, key, op, val, NULL);

    acct_assoc_free(s);
    return rc != 0;
}

static int modify_qos(struct acct *a, const struct acct_req *r,
                      struct acct_plan *p, struct err *e)
{
    acct_plan_line(p, " Modified qos...");
    for (size_t i = 0; acct_qos_at(a, i) != NULL; i++) {
        const struct acct_qos *q = acct_qos_at(a, i);
        struct acct_qos *c;
        if (!qos_match(r->where, q))
            continue;
        c = acct_qos_dup(q);
        acct_plan_add(p, ACCT_KIND_QOS, (void *)q, c);
        acct_plan_line(p, "  %s", q->name);
        for (size_t k = 0; k < json_array_size(r->set); k++) {
            const char *key, *op, *val;
            int rc;
            if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
                return -1;
            rc = acct_set_qos(a, c, key, op, val, e);
            if (rc == 0)
                return acct_bad(e, "Unknown field for qos: %s", key);
            if (rc < 0)
                return err_prefix(e, "qos %s", q->name);
        }
    }
    return 0;
}

/* The user-level keys of set on a copy of u (none: no copy). */
static int user_keys(const struct acct *a, const struct acct_req *r,
                     struct acct_plan *p, const struct acct_user *u,
                     struct err *e)
{
    struct acct_user *c = NULL;

    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        int rc;
        if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
            return -1;
        if (is_assoc_key(a, key, op, val))
            continue;
        if (c == NULL) {
            c = acct_user_dup(u);
            acct_plan_add(p, ACCT_KIND_USER, (void *)u, c);
        }
        rc = acct_set_user(a, c, key, op, val, r->flags, e);
        if (rc == 0)
            return acct_bad(e, "Unknown field for user: %s", key);
        if (rc < 0)
            return err_prefix(e, "user %s", u->name);
    }
    if (c != NULL &&
        acct_assoc_find(a, c->name, c->default_account, NULL) == NULL)
        return acct_bad(e,
                        "DefaultAccount=%s: user %s has no association "
                        "with that account",
                        c->default_account, c->name);
    return 0;
}

static int modify_user(struct acct *a, const struct acct_req *r,
                       struct acct_plan *p, struct err *e)
{
    acct_plan_line(p, " Modified user associations...");
    for (size_t i = 0; acct_user_at(a, i) != NULL; i++) {
        const struct acct_user *u = acct_user_at(a, i);
        if (!user_match(r->where, u))
            continue;
        if (user_keys(a, r, p, u, e) < 0)
            return -1;
        for (size_t j = 0; acct_assoc_at(a, j) != NULL; j++) {
            const struct acct_assoc *as = acct_assoc_at(a, j);
            if (as->user == NULL || strcmp(as->user, u->name) != 0 ||
                !acct_where_has(acct_where(r->where, W_ACCOUNT), as->account) ||
                !acct_where_has(acct_where(r->where, W_PART), as->partition) ||
                !acct_where_has(acct_where(r->where, W_CLUSTER), as->cluster))
                continue;
            if (assoc_keys(a, r, p, as, e) < 0)
                return err_prefix(e, "user %s", u->name);
        }
    }
    return 0;
}

/* Would ac under parent make a loop in the tree? */
static bool makes_cycle(const struct acct *a, const char *account,
                        const char *parent)
{
    for (int depth = 0; parent != NULL && depth < 1000; depth++) {
        const struct acct_account *x = acct_account_find(a, parent);
        if (strcmp(parent, account) == 0)
            return true;
        parent = x ? x->parent : NULL;
    }
    return false;
}

static int account_keys(const struct acct *a, const struct acct_req *r,
                        struct acct_plan *p, const struct acct_account *ac,
                        struct err *e)
{
    struct acct_account *c = NULL;

    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        int rc;
        if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
            return -1;
        if (is_assoc_key(a, key, op, val))
            continue;
        if (c == NULL) {
            c = acct_account_dup(ac);
            acct_plan_add(p, ACCT_KIND_ACCOUNT, (void *)ac, c);
            acct_plan_line(p, "  %s", ac->name);
        }
        rc = acct_set_account(a, c, key, op, val, e);
        if (rc == 0)
            return acct_bad(e, "Unknown field for account: %s", key);
        if (rc < 0)
            return err_prefix(e, "account %s", ac->name);
    }
    if (c != NULL && makes_cycle(a, c->name, c->parent))
        return acct_bad(e, "Parent=%s: account %s would be its own ancestor",
                        c->parent, c->name);
    return 0;
}

static int modify_account(struct acct *a, const struct acct_req *r,
                          struct acct_plan *p, struct err *e)
{
    acct_plan_line(p, " Modified account...");
    for (size_t i = 0; acct_account_at(a, i) != NULL; i++) {
        const struct acct_account *ac = acct_account_at(a, i);
        const struct acct_assoc *as;
        if (!account_match(r->where, ac))
            continue;
        if (account_keys(a, r, p, ac, e) < 0)
            return -1;
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++) {
            if (as->user == NULL && strcmp(as->account, ac->name) == 0 &&
                acct_where_has(acct_where(r->where, W_CLUSTER), as->cluster) &&
                assoc_keys(a, r, p, as, e) < 0)
                return err_prefix(e, "account %s", ac->name);
        }
    }
    return 0;
}

/* Only association keys; any other key is unknown for the entity. */
static int only_assoc_keys(const struct acct *a, const struct acct_req *r,
                           struct err *e)
{
    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
            return -1;
        if (!is_assoc_key(a, key, op, val)) {
            struct acct_assoc *s = acct_assoc_new("", "", NULL, NULL);
            int rc = acct_set_assoc(a, s, key, op, val, e);
            acct_assoc_free(s);
            if (rc == 0)
                return acct_bad(e, "Unknown field for %s: %s", r->entity, key);
            return -1;
        }
    }
    return 0;
}

static int modify_assoc(struct acct *a, const struct acct_req *r,
                        struct acct_plan *p, struct err *e)
{
    const struct acct_assoc *as;

    if (only_assoc_keys(a, r, e) < 0)
        return -1;
    acct_plan_line(p, " Modified associations...");
    for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++)
        if (assoc_match(r->where, as) && assoc_keys(a, r, p, as, e) < 0)
            return -1;
    return 0;
}

static int modify_cluster(struct acct *a, const struct acct_req *r,
                          struct acct_plan *p, struct err *e)
{
    const struct acct_cluster *c;

    if (only_assoc_keys(a, r, e) < 0)
        return -1;
    acct_plan_line(p, " Modified cluster...");
    for (size_t i = 0; (c = acct_cluster_at(a, i)) != NULL; i++) {
        const struct acct_assoc *root =
            acct_find_assoc_exact(a, c->name, "root", NULL, NULL);
        if (cluster_match(r->where, c) && root != NULL &&
            assoc_keys(a, r, p, root, e) < 0)
            return -1;
    }
    return 0;
}

int acct_modify(struct acct *a, const struct acct_req *r, json_t **result,
                struct err *e)
{
    struct acct_plan p;
    int rc;

    if (check_req(r, true, e) < 0)
        return -1;
    acct_plan_init(&p);
    if (strcmp(r->entity, "qos") == 0)
        rc = modify_qos(a, r, &p, e);
    else if (strcmp(r->entity, "user") == 0)
        rc = modify_user(a, r, &p, e);
    else if (strcmp(r->entity, "account") == 0)
        rc = modify_account(a, r, &p, e);
    else if (strcmp(r->entity, "association") == 0)
        rc = modify_assoc(a, r, &p, e);
    else
        rc = modify_cluster(a, r, &p, e);
    if (rc == 0 && p.n == 0) {
        errno = ENOENT;
        rc = err_set(e, "Nothing modified: no %s matches the conditions",
                     r->entity);
    }
    if (rc < 0) {
        acct_plan_free(&p);
        return -1;
    }
    return acct_plan_finish(a, &p, r->flags, result, e);
}

/* ---- DELETE ------------------------------------------------------------- */

/* Drop name from a QOS list of every association and QOS that has it. */
static void unlink_qos(const struct acct *a, struct acct_plan *p,
                       const char *name)
{
    const struct acct_assoc *as;
    const struct acct_qos *q;

    for (size_t i = 0; (as = acct_assoc_at(a, i)) != NULL; i++) {
        struct acct_assoc *c;
        if (!acct_strv_has(as->qos, as->n_qos, name) &&
            !(as->default_qos && strcmp(as->default_qos, name) == 0))
            continue;
        c = acct_plan_new_of(p, as);
        if (c == NULL) {
            c = acct_assoc_dup(as);
            acct_plan_add(p, ACCT_KIND_ASSOC, (void *)as, c);
        }
        acct_strv_del(c->qos, &c->n_qos, name);
        if (c->default_qos && strcmp(c->default_qos, name) == 0) {
            free(c->default_qos);
            c->default_qos = NULL;
        }
    }
    for (size_t i = 0; (q = acct_qos_at(a, i)) != NULL; i++) {
        struct acct_qos *c;
        if (!acct_strv_has(q->preempt, q->n_preempt, name) ||
            strcmp(q->name, name) == 0)
            continue;
        c = acct_plan_new_of(p, q);
        if (c == NULL) {
            c = acct_qos_dup(q);
            acct_plan_add(p, ACCT_KIND_QOS, (void *)q, c);
        }
        acct_strv_del(c->preempt, &c->n_preempt, name);
    }
}

static int delete_qos(struct acct *a, const struct acct_req *r,
                      struct acct_plan *p, struct err *e)
{
    const struct acct_qos *q;
    size_t n = 0;

    acct_plan_line(p, " Deleting QOS(s)...");
    for (size_t i = 0; (q = acct_qos_at(a, i)) != NULL; i++) {
        if (!qos_match(r->where, q))
            continue;
        if (strcmp(q->name, "normal") == 0)
            return acct_bad(e, "qos normal is the default QOS and cannot be "
                               "deleted");
        acct_plan_line(p, "  %s", q->name);
        n++;
    }
    for (size_t i = 0; (q = acct_qos_at(a, i)) != NULL; i++)
        if (qos_match(r->where, q))
            unlink_qos(a, p, q->name);
    /* the QOS themselves last: unlink_qos looks them up by pointer */
    for (size_t i = 0; n > 0 && (q = acct_qos_at(a, i)) != NULL; i++) {
        if (!qos_match(r->where, q))
            continue;
        if (acct_plan_new_of(p, q) != NULL)
            continue; /* cannot be: a deleted QOS is not rewritten */
        acct_plan_add(p, ACCT_KIND_QOS, (void *)q, NULL);
    }
    return 0;
}

static bool planned_gone(const struct acct_plan *p, const void *x)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->c[i].old_rec == x && p->c[i].new_rec == NULL)
            return true;
    return false;
}

static void plan_delete_assoc(struct acct_plan *p, const struct acct_assoc *as)
{
    if (planned_gone(p, as))
        return;
    acct_plan_add(p, ACCT_KIND_ASSOC, (void *)as, NULL);
    acct_plan_line(p, "  C = %-15s A = %-15s U = %-10s%s%s", as->cluster,
                   as->account, as->user ? as->user : "",
                   as->partition ? " P = " : "",
                   as->partition ? as->partition : "");
}

/* After user associations went: a user with none left goes too, one whose
 * default account lost its association gets another. */
static int fix_users(const struct acct *a, struct acct_plan *p, struct err *e)
{
    const struct acct_user *u;

    for (size_t i = 0; (u = acct_user_at(a, i)) != NULL; i++) {
        const struct acct_assoc *as, *keep = NULL, *def = NULL;
        if (planned_gone(p, u))
            continue;
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++) {
            if (as->user == NULL || strcmp(as->user, u->name) != 0 ||
                planned_gone(p, as))
                continue;
            keep = keep ? keep : as;
            if (strcmp(as->account, u->default_account) == 0)
                def = as;
        }
        if (keep == NULL) {
            if (strcmp(u->name, "root") == 0)
                return acct_bad(e, "user root keeps its association with "
                                   "account root");
            acct_plan_add(p, ACCT_KIND_USER, (void *)u, NULL);
            acct_plan_line(p, "  user %s (no associations left)", u->name);
        } else if (def == NULL) {
            struct acct_user *c = acct_user_dup(u);
            free(c->default_account);
            c->default_account = xstrdup(keep->account);
            acct_plan_add(p, ACCT_KIND_USER, (void *)u, c);
        }
    }
    return 0;
}

static int delete_user(struct acct *a, const struct acct_req *r,
                       struct acct_plan *p, struct err *e)
{
    const struct acct_user *u;
    const struct acct_assoc *as;
    bool partial = acct_where(r->where, W_ACCOUNT) ||
                   acct_where(r->where, W_PART) ||
                   acct_where(r->where, W_CLUSTER);

    acct_plan_line(p, " Deleting user associations...");
    for (size_t i = 0; (u = acct_user_at(a, i)) != NULL; i++) {
        if (!user_match(r->where, u))
            continue;
        if (!partial && strcmp(u->name, "root") == 0)
            return acct_bad(e, "user root cannot be deleted");
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++)
            if (as->user && strcmp(as->user, u->name) == 0 &&
                acct_where_has(acct_where(r->where, W_ACCOUNT), as->account) &&
                acct_where_has(acct_where(r->where, W_PART), as->partition) &&
                acct_where_has(acct_where(r->where, W_CLUSTER), as->cluster))
                plan_delete_assoc(p, as);
        if (!partial) {
            acct_plan_add(p, ACCT_KIND_USER, (void *)u, NULL);
            acct_plan_line(p, "  user %s", u->name);
        }
    }
    return fix_users(a, p, e);
}

static int delete_account(struct acct *a, const struct acct_req *r,
                          struct acct_plan *p, struct err *e)
{
    const struct acct_account *ac, *child;
    const struct acct_assoc *as;

    acct_plan_line(p, " Deleting account(s)...");
    for (size_t i = 0; (ac = acct_account_at(a, i)) != NULL; i++) {
        if (!account_match(r->where, ac))
            continue;
        if (strcmp(ac->name, "root") == 0)
            return acct_bad(e, "account root cannot be deleted");
        for (size_t j = 0; (child = acct_account_at(a, j)) != NULL; j++)
            if (child->parent && strcmp(child->parent, ac->name) == 0 &&
                !account_match(r->where, child))
                return acct_bad(e,
                                "account %s has child account %s: delete "
                                "or move it first",
                                ac->name, child->name);
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++)
            if (as->user && strcmp(as->account, ac->name) == 0)
                return acct_bad(e,
                                "account %s has user %s: delete the "
                                "user's association first",
                                ac->name, as->user);
        acct_plan_line(p, "  %s", ac->name);
        acct_plan_add(p, ACCT_KIND_ACCOUNT, (void *)ac, NULL);
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++)
            if (strcmp(as->account, ac->name) == 0)
                acct_plan_add(p, ACCT_KIND_ASSOC, (void *)as, NULL);
    }
    return 0;
}

static int delete_assoc(struct acct *a, const struct acct_req *r,
                        struct acct_plan *p, struct err *e)
{
    const struct acct_assoc *as;

    acct_plan_line(p, " Deleting associations...");
    for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++) {
        if (!assoc_match(r->where, as))
            continue;
        if (as->user == NULL)
            return acct_bad(e,
                            "the association of account %s goes with the "
                            "account: use delete account",
                            as->account);
        plan_delete_assoc(p, as);
    }
    return fix_users(a, p, e);
}

static int delete_cluster(struct acct *a, const struct acct_req *r,
                          struct acct_plan *p, struct err *e)
{
    const struct acct_cluster *c;
    const struct acct_assoc *as;

    acct_plan_line(p, " Deleting clusters...");
    for (size_t i = 0; (c = acct_cluster_at(a, i)) != NULL; i++) {
        if (!cluster_match(r->where, c))
            continue;
        if (strcmp(c->name, a->cluster) == 0)
            return acct_bad(e,
                            "cluster %s is this controller's cluster and "
                            "cannot be deleted",
                            c->name);
        acct_plan_line(p, "  %s", c->name);
        acct_plan_add(p, ACCT_KIND_CLUSTER, (void *)c, NULL);
        for (size_t j = 0; (as = acct_assoc_at(a, j)) != NULL; j++)
            if (strcmp(as->cluster, c->name) == 0)
                acct_plan_add(p, ACCT_KIND_ASSOC, (void *)as, NULL);
    }
    return 0;
}

int acct_delete(struct acct *a, const struct acct_req *r, json_t **result,
                struct err *e)
{
    struct acct_plan p;
    int rc;

    if (check_req(r, false, e) < 0)
        return -1;
    if (r->where == NULL || json_object_size(r->where) == 0)
        return acct_bad(e, "delete %s: give conditions (where name=...)",
                        r->entity);
    acct_plan_init(&p);
    if (strcmp(r->entity, "qos") == 0)
        rc = delete_qos(a, r, &p, e);
    else if (strcmp(r->entity, "user") == 0)
        rc = delete_user(a, r, &p, e);
    else if (strcmp(r->entity, "account") == 0)
        rc = delete_account(a, r, &p, e);
    else if (strcmp(r->entity, "association") == 0)
        rc = delete_assoc(a, r, &p, e);
    else
        rc = delete_cluster(a, r, &p, e);
    if (rc == 0 && p.n == 0) {
        errno = ENOENT;
        rc = err_set(e, "Nothing deleted: no %s matches the conditions",
                     r->entity);
    }
    if (rc < 0) {
        acct_plan_free(&p);
        return -1;
    }
    return acct_plan_finish(a, &p, r->flags, result, e);
}

/* ---- LIST ---------------------------------------------------------------- */

json_t *acct_list(const struct acct *a, const struct acct_req *r, struct err *e)
{
    json_t *arr, *w = r->where;
    const char *key;

    if (check_req(r, false, e) < 0)
        return NULL;
    arr = json_array();
    if (strcmp(r->entity, "qos") == 0) {
        key = "qos";
        for (size_t i = 0; acct_qos_at(a, i); i++)
            if (qos_match(w, acct_qos_at(a, i)))
                json_array_append_new(arr, acct_qos_to_json(acct_qos_at(a, i)));
    } else if (strcmp(r->entity, "user") == 0) {
        key = "users";
        for (size_t i = 0; acct_user_at(a, i); i++)
            if (user_match(w, acct_user_at(a, i)))
                json_array_append_new(arr,
                                      acct_user_to_json(a, acct_user_at(a, i)));
    } else if (strcmp(r->entity, "account") == 0) {
        key = "accounts";
        for (size_t i = 0; acct_account_at(a, i); i++)
            if (account_match(w, acct_account_at(a, i)))
                json_array_append_new(
                    arr, acct_account_to_json(acct_account_at(a, i)));
    } else if (strcmp(r->entity, "association") == 0) {
        key = "associations";
        for (size_t i = 0; acct_assoc_at(a, i); i++)
            if (assoc_match(w, acct_assoc_at(a, i)))
                json_array_append_new(arr,
                                      acct_assoc_to_json(acct_assoc_at(a, i)));
    } else {
        key = "clusters";
        for (size_t i = 0; acct_cluster_at(a, i); i++)
            if (cluster_match(w, acct_cluster_at(a, i)))
                json_array_append_new(
                    arr, acct_cluster_to_json(acct_cluster_at(a, i)));
    }
    return json_pack("{s:o}", key, arr);
}
