/*
 * ADD requests of the accounting model, and what every request shares:
 * the plan (new records built and checked aside, swapped in at the end, so
 * a failed request changes nothing), the where conditions and the set
 * items.  MODIFY, DELETE and LIST are in acct_mod.c.
 */
#include "ctld/acct/acct_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"

int acct_bad(struct err *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return -1;
}

/* ---- plans --------------------------------------------------------------- */

void acct_plan_init(struct acct_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->lines = json_array();
    p->notes = json_array();
}

void acct_plan_add(struct acct_plan *p, enum acct_kind kind, void *old_rec,
                   void *new_rec)
{
    p->c = xreallocarray(p->c, p->n + 1, sizeof(*p->c));
    p->c[p->n++] = (struct acct_change){kind, old_rec, new_rec};
}

void *acct_plan_new_of(const struct acct_plan *p, const void *old_rec)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->c[i].old_rec == old_rec)
            return p->c[i].new_rec;
    return NULL;
}

void acct_plan_line(struct acct_plan *p, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(p->lines, json_string(buf));
}

void acct_plan_free(struct acct_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        acct_record_free(p->c[i].kind, p->c[i].new_rec);
    free(p->c);
    json_decref(p->lines);
    json_decref(p->notes);
    memset(p, 0, sizeof(*p));
}

/* Swap the plan in; it then owns nothing but its old records, freed here. */
int acct_plan_apply(struct acct *a, struct acct_plan *p, struct err *e)
{
    int rc = 0;

    for (size_t i = 0; i < p->n; i++) {
        struct acct_change *c = &p->c[i];
        struct acct_vec *v = &a->vec[c->kind];
        if (c->old_rec == NULL)
            acct_vec_push(v, c->new_rec);
        else if (c->new_rec != NULL)
            acct_vec_replace(v, c->old_rec, c->new_rec);
        else
            acct_vec_remove(v, c->old_rec);
    }
    acct_changed(a);
    for (size_t i = 0; i < p->n; i++) {
        struct acct_change *c = &p->c[i];
        int r = c->new_rec ? acct_save(a, c->kind, c->new_rec, e)
                           : acct_unsave(a, c->kind, c->old_rec, e);
        if (r < 0 && rc == 0) {
            log_warn("accounting change not saved: %s", e->text);
            rc = -1;
        }
        acct_record_free(c->kind, c->old_rec);
        c->old_rec = NULL;
        c->new_rec = NULL;
    }
    return rc;
}

int acct_plan_finish(struct acct *a, struct acct_plan *p, unsigned flags,
                     json_t **result, struct err *e)
{
    int rc = 0;

    if (!(flags & ACCT_REQ_DRY_RUN))
        rc = acct_plan_apply(a, p, e);
    if (rc == 0)
        *result = json_pack("{s:O, s:O, s:b}", "changes", p->lines, "notes",
                            p->notes, "committed", !(flags & ACCT_REQ_DRY_RUN));
    acct_plan_free(p);
    return rc;
}

/* ---- where and set -------------------------------------------------------- */

const char *acct_where(json_t *where, const char *const *aliases)
{
    const char *key;
    json_t *v;

    json_object_foreach(where, key, v)
    {
        if (limits_key_is(key, aliases))
            return json_string_value(v);
    }
    return NULL;
}

bool acct_where_has(const char *list, const char *s)
{
    size_t n;

    if (list == NULL)
        return true;
    if (s == NULL)
        return false;
    n = strlen(s);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0)
            return true;
        p += len + (end != NULL);
    }
    return false;
}

int acct_where_check(const char *entity, json_t *where,
                     const char *const *valid, struct err *e)
{
    const char *key;
    json_t *v;

    if (where == NULL || json_is_null(where))
        return 0;
    if (!json_is_object(where))
        return acct_bad(e, "where: expected an object of conditions");
    json_object_foreach(where, key, v)
    {
        if (!json_is_string(v))
            return acct_bad(e, "where %s: expected a string", key);
        if (!limits_key_is(key, valid))
            return acct_bad(e, "Unknown condition for %s: %s", entity, key);
    }
    return 0;
}

int acct_set_item(json_t *set, size_t i, const char **key, const char **op,
                  const char **val, struct err *e)
{
    json_t *it = json_array_get(set, i);

    *op = "=";
    if (json_unpack(it, "{s:s, s?s, s:s}", "key", key, "op", op, "value", val) <
        0)
        return acct_bad(e, "set[%zu]: expected {\"key\", \"op\", \"value\"}",
                        i);
    if (strcmp(*op, "=") != 0 && strcmp(*op, "+=") != 0 &&
        strcmp(*op, "-=") != 0)
        return acct_bad(e, "set %s: unknown operator \"%.8s\"", *key, *op);
    return 0;
}

int acct_assoc_check(const struct acct_assoc *as,
                     const struct acct_assoc *parent, struct err *e)
{
    size_t n = as->n_qos;
    char *const *v = as->qos;

    if (as->default_qos == NULL)
        return 0;
    if (n == 0)
        v = acct_assoc_qos_list(parent, &n);
    if (n > 0 && !acct_strv_has(v, n, as->default_qos)) {
        char *list = acct_strv_join(v, n);
        acct_bad(e,
                 "DefaultQOS=%s is not in the QOS list of association "
                 "(account %s, user %s): %s",
                 as->default_qos, as->account, as->user ? as->user : "", list);
        free(list);
        return -1;
    }
    return 0;
}

static int check_name(const char *what, const char *s, struct err *e)
{
    if (*s == '\0' || strlen(s) > 64)
        return acct_bad(e, "%s name \"%.64s\": must be 1-64 characters", what,
                        s);
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-.@", *p))
            return acct_bad(e,
                            "%s name \"%.64s\": only letters, digits and "
                            "_ - . @ are allowed",
                            what, s);
    return 0;
}

static int names_of(json_t *names, const char *what, struct err *e)
{
    json_t *v;
    size_t i;

    if (!json_is_array(names) || json_array_size(names) == 0)
        return acct_bad(e, "add %s: no names given", what);
    json_array_foreach(names, i, v)
    {
        if (!json_is_string(v))
            return acct_bad(e, "add %s: names[%zu]: expected a string", what,
                            i);
        if (check_name(what, json_string_value(v), e) < 0)
            return -1;
    }
    return 0;
}

/* ---- ADD ------------------------------------------------------------------ */

static const char *const K_CLUSTER[] = {"Cluster", "Clusters", NULL};
static const char *const K_ACCOUNT[] = {"Account", "Accounts", "Acct", NULL};
static const char *const K_PART[] = {"Partition", "Partitions", NULL};
static const char *const K_USER[] = {"User", "Users", NULL};

/* The values of set given for aliases (comma lists), else NULL. */
static const char *set_value(json_t *set, const char *const *aliases)
{
    for (size_t i = 0; i < json_array_size(set); i++) {
        const char *key, *op, *val;
        if (acct_set_item(set, i, &key, &op, &val, NULL) == 0 &&
            limits_key_is(key, aliases))
            return val;
    }
    return NULL;
}

static bool is_placement(const char *key)
{
    return limits_key_is(key, K_CLUSTER) || limits_key_is(key, K_ACCOUNT) ||
           limits_key_is(key, K_PART) || limits_key_is(key, K_USER);
}

static int add_qos(struct acct *a, const struct acct_req *r,
                   struct acct_plan *p, struct err *e)
{
    json_t *v;
    size_t i;

    if (names_of(r->names, "qos", e) < 0)
        return -1;
    acct_plan_line(p, " Adding QOS(s)");
    json_array_foreach(r->names, i, v)
    {
        const char *name = json_string_value(v);
        struct acct_qos *q;
        if (acct_qos_find(a, name) != NULL)
            return acct_bad(e, "qos %s already exists: nothing new added",
                            name);
        q = acct_qos_new(name);
        q->id = a->next_qos_id + (uint32_t)i;
        acct_plan_add(p, ACCT_KIND_QOS, NULL, q);
        acct_plan_line(p, "  %s", name);
        for (size_t k = 0; k < json_array_size(r->set); k++) {
            const char *key, *op, *val;
            int rc;
            if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
                return -1;
            rc = acct_set_qos(a, q, key, op, val, e);
            if (rc == 0)
                return acct_bad(e, "Unknown field for qos: %s", key);
            if (rc < 0)
                return err_prefix(e, "qos %s", name);
        }
    }
    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        acct_set_item(r->set, k, &key, &op, &val, NULL);
        if (k == 0)
            acct_plan_line(p, " Settings");
        acct_plan_line(p, "  %-15s %s %s", key, op, val);
    }
    return 0;
}

/* Apply the association keys of set to as; other keys are checked by the
 * caller.  Returns -1 on a bad value or a key nobody takes. */
static int apply_assoc_set(const struct acct *a, const struct acct_req *r,
                           struct acct_assoc *as, bool user_keys,
                           bool account_keys, struct err *e)
{
    for (size_t k = 0; k < json_array_size(r->set); k++) {
        const char *key, *op, *val;
        int rc;
        if (acct_set_item(r->set, k, &key, &op, &val, e) < 0)
            return -1;
        if (is_placement(key))
            continue;
        rc = acct_set_assoc(a, as, key, op, val, e);
        if (rc < 0)
            return -1;
        if (rc == 0 && user_keys &&
            limits_key_is(key,
                          (const char *const[]){"DefaultAccount", "DefAccount",
                                                "AdminLevel", "Admin", NULL}))
            continue;
        if (rc == 0 && account_keys &&
            limits_key_is(key,
                          (const char *const[]){"Description", "Organization",
                                                "Parent", NULL}))
            continue;
        if (rc == 0)
            return acct_bad(e, "Unknown field for %s: %s", r->entity, key);
    }
    return acct_assoc_check(as, as->parent, e);
}

static int plan_assoc(struct acct *a, const struct acct_req *r,
                      struct acct_plan *p, const char *cluster,
                      const char *account, const char *user, const char *part,
                      const struct acct_assoc *parent, struct err *e)
{
    struct acct_assoc *as = acct_assoc_new(cluster, account, user, part);

    as->id = a->next_assoc_id++;
    as->parent = parent;
    acct_plan_add(p, ACCT_KIND_ASSOC, NULL, as);
    if (apply_assoc_set(a, r, as, user != NULL, user == NULL, e) < 0)
        return -1;
    acct_plan_line(p, "  C = %-15s A = %-15s U = %-10s%s%s", cluster, account,
                   user ? user : "", part ? " P = " : "", part ? part : "");
    return 0;
}

/* Each comma-separated item of list as fn(item) until one fails. */
static char **split(const char *list, size_t *n)
{
    char **v = NULL, *copy = xstrdup(list), *save = NULL, *it;

    *n = 0;
    for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save))
        acct_strv_add(&v, n, it);
    free(copy);
    return v;
}

static int check_cluster(const struct acct *a, const char *c, struct err *e)
{
    if (acct_cluster_find(a, c) == NULL)
        return acct_bad(e, "Cluster=%s: no such cluster", c);
    return 0;
}

/* The account's own association, already there or planned. */
static const struct acct_assoc *account_assoc_planned(const struct acct *a,
                                                      struct acct_plan *p,
                                                      const char *account)
{
    const struct acct_assoc *as = acct_account_assoc(a, account);

    for (size_t i = 0; as == NULL && i < p->n; i++) {
        const struct acct_assoc *x = p->c[i].new_rec;
        if (p->c[i].kind == ACCT_KIND_ASSOC && x && x->user == NULL &&
            strcmp(x->account, account) == 0)
            as = x;
    }
    return as;
}

static int add_account(struct acct *a, const struct acct_req *r,
                       struct acct_plan *p, struct err *e)
{
    const char *cluster = set_value(r->set, K_CLUSTER);
    json_t *v;
    size_t i;

    if (names_of(r->names, "account", e) < 0)
        return -1;
    if (cluster == NULL)
        cluster = a->cluster;
    if (check_cluster(a, cluster, e) < 0)
        return -1;
    acct_plan_line(p, " Adding Account(s)");
    json_array_foreach(r->names, i, v)
    {
        const char *name = json_string_value(v);
        struct acct_account *ac;
        if (acct_account_find(a, name) != NULL)
            return acct_bad(e, "account %s already exists: nothing new added",
                            name);
        ac = acct_account_new(name, "root");
        acct_plan_add(p, ACCT_KIND_ACCOUNT, NULL, ac);
        for (size_t k = 0; k < json_array_size(r->set); k++) {
            const char *key, *op, *val;
            if (acct_set_item(r->set, k, &key, &op, &val, e) < 0 ||
                acct_set_account(a, ac, key, op, val, e) < 0)
                return -1;
        }
        if (strcmp(ac->parent, name) == 0)
            return acct_bad(e,
                            "Parent=%s: an account cannot be its own "
                            "parent",
                            name);
        acct_plan_line(p, "  %s (parent %s)", name, ac->parent);
    }
    acct_plan_line(p, " Associations");
    json_array_foreach(r->names, i, v)
    {
        struct acct_account *ac = p->c[i].new_rec;
        const struct acct_assoc *parent =
            account_assoc_planned(a, p, ac->parent);
        if (parent == NULL)
            return acct_bad(e, "Parent=%s: no such account", ac->parent);
        if (plan_assoc(a, r, p, cluster, ac->name, NULL, NULL, parent, e) < 0)
            return -1;
    }
    return 0;
}

/* The account for add user without Account=: the user's default, else
 * "default" (made under root, and said so). */
static const char *implicit_account(struct acct *a, const char *user,
                                    struct acct_plan *p)
{
    const struct acct_user *u = acct_user_find(a, user);
    char note[256];

    if (u != NULL)
        return u->default_account;
    if (acct_account_find(a, "default") != NULL) {
        snprintf(note, sizeof(note),
                 "no Account= given: adding %s to account default", user);
    } else {
        struct acct_account *ac = acct_account_new("default", "root");
        free(ac->description);
        ac->description = xstrdup("default account for users");
        acct_plan_add(p, ACCT_KIND_ACCOUNT, NULL, ac);
        acct_plan_add(p, ACCT_KIND_ASSOC, NULL,
                      acct_assoc_new(a->cluster, "default", NULL, NULL));
        ((struct acct_assoc *)p->c[p->n - 1].new_rec)->id = a->next_assoc_id++;
        ((struct acct_assoc *)p->c[p->n - 1].new_rec)->parent =
            acct_account_assoc(a, "root");
        snprintf(note, sizeof(note),
                 "no Account= given: created account default (parent root) "
                 "and added %s to it",
                 user);
    }
    json_array_append_new(p->notes, json_string(note));
    return "default";
}

static int add_user_assocs(struct acct *a, const struct acct_req *r,
                           struct acct_plan *p, const char *user,
                           const char *cluster, char **accts, size_t n_accts,
                           char **parts, size_t n_parts, size_t *added,
                           struct err *e)
{
    for (size_t i = 0; i < n_accts; i++) {
        const struct acct_assoc *parent = account_assoc_planned(a, p, accts[i]);
        if (parent == NULL)
            return acct_bad(e, "Account=%s: no such account", accts[i]);
        for (size_t j = 0; j < (n_parts ? n_parts : 1); j++) {
            const char *part = n_parts ? parts[j] : NULL;
            if (acct_find_assoc_exact(a, cluster, accts[i], user, part))
                continue;
            if (plan_assoc(a, r, p, cluster, accts[i], user, part, parent, e) <
                0)
                return -1;
            (*added)++;
        }
    }
    return 0;
}

static int plan_user(struct acct *a, const struct acct_req *r,
                     struct acct_plan *p, const char *name, const char *cluster,
                     const char *parts_list, size_t *added, struct err *e)
{
    const char *acct_list = set_value(r->set, K_ACCOUNT);
    char **accts, **parts = NULL;
    size_t n_accts, n_parts = 0;
    const struct acct_user *old = acct_user_find(a, name);
    int rc = -1;

    if (acct_list == NULL)
        acct_list = implicit_account(a, name, p);
    accts = split(acct_list, &n_accts);
    if (parts_list)
        parts = split(parts_list, &n_parts);
    if (n_accts == 0) {
        acct_bad(e, "Account=: no account given");
        goto out;
    }
    if (old == NULL) {
        struct acct_user *u = acct_user_new(name, accts[0]);
        acct_plan_add(p, ACCT_KIND_USER, NULL, u);
        for (size_t k = 0; k < json_array_size(r->set); k++) {
            const char *key, *op, *val;
            if (acct_set_item(r->set, k, &key, &op, &val, e) < 0 ||
                acct_set_user(a, u, key, op, val, r->flags, e) < 0)
                goto out;
        }
        if (!acct_strv_has(accts, n_accts, u->default_account)) {
            acct_bad(e, "DefaultAccount=%s: user %s is not being added to it",
                     u->default_account, name);
            goto out;
        }
    }
    rc = add_user_assocs(a, r, p, name, cluster, accts, n_accts, parts, n_parts,
                         added, e);
out:
    acct_strv_free(accts, n_accts);
    acct_strv_free(parts, n_parts);
    return rc;
}

static int add_user(struct acct *a, const struct acct_req *r,
                    struct acct_plan *p, struct err *e)
{
    const char *cluster = set_value(r->set, K_CLUSTER);
    const char *parts = set_value(r->set, K_PART);
    size_t added = 0;
    json_t *v;
    size_t i;

    if (names_of(r->names, "user", e) < 0)
        return -1;
    if (cluster == NULL)
        cluster = a->cluster;
    if (check_cluster(a, cluster, e) < 0)
        return -1;
    acct_plan_line(p, " Adding User(s)");
    json_array_foreach(r->names, i, v)
    {
        acct_plan_line(p, "  %s", json_string_value(v));
    }
    acct_plan_line(p, " Associations =");
    json_array_foreach(r->names, i, v)
    {
        if (plan_user(a, r, p, json_string_value(v), cluster, parts, &added,
                      e) < 0)
            return -1;
    }
    if (added == 0)
        return acct_bad(e, "nothing new added: the user(s) already have "
                           "these associations");
    return 0;
}

static int add_assoc(struct acct *a, const struct acct_req *r,
                     struct acct_plan *p, struct err *e)
{
    const char *users = set_value(r->set, K_USER);
    const char *cluster = set_value(r->set, K_CLUSTER);
    char **uv;
    size_t n, added = 0;
    int rc = 0;

    if (set_value(r->set, K_ACCOUNT) == NULL)
        return acct_bad(e, "add association: Account= is required");
    if (users == NULL)
        return acct_bad(e, "add association: User= is required (accounts "
                           "get theirs with add account)");
    if (cluster == NULL)
        cluster = a->cluster;
    if (check_cluster(a, cluster, e) < 0)
        return -1;
    uv = split(users, &n);
    acct_plan_line(p, " Adding Association(s)");
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (acct_user_find(a, uv[i]) == NULL)
            rc = acct_bad(e,
                          "User=%s: no such user (add it with sacctmgr "
                          "add user)",
                          uv[i]);
        else
            rc = plan_user(a, r, p, uv[i], cluster, set_value(r->set, K_PART),
                           &added, e);
    }
    acct_strv_free(uv, n);
    if (rc == 0 && added == 0)
        rc = acct_bad(e, "nothing new added: these associations exist");
    return rc;
}

static int add_cluster(struct acct *a, const struct acct_req *r,
                       struct acct_plan *p, struct err *e)
{
    json_t *v;
    size_t i;

    if (names_of(r->names, "cluster", e) < 0)
        return -1;
    if (json_array_size(r->set) > 0)
        return acct_bad(e, "add cluster: no settings are supported");
    acct_plan_line(p, " Adding Cluster(s)");
    json_array_foreach(r->names, i, v)
    {
        const char *name = json_string_value(v);
        if (acct_cluster_find(a, name) != NULL)
            return acct_bad(e, "cluster %s already exists: nothing new added",
                            name);
        acct_plan_add(p, ACCT_KIND_CLUSTER, NULL, acct_cluster_new(name));
        acct_plan_line(p, "  Name           = %s", name);
    }
    return 0;
}

int acct_add(struct acct *a, const struct acct_req *r, json_t **result,
             struct err *e)
{
    struct acct_plan p;
    uint32_t assoc_id = a->next_assoc_id;
    int rc;

    if (r->set != NULL && !json_is_array(r->set))
        return acct_bad(e, "set: expected an array");
    acct_plan_init(&p);
    if (strcmp(r->entity, "qos") == 0)
        rc = add_qos(a, r, &p, e);
    else if (strcmp(r->entity, "account") == 0)
        rc = add_account(a, r, &p, e);
    else if (strcmp(r->entity, "user") == 0)
        rc = add_user(a, r, &p, e);
    else if (strcmp(r->entity, "association") == 0)
        rc = add_assoc(a, r, &p, e);
    else if (strcmp(r->entity, "cluster") == 0)
        rc = add_cluster(a, r, &p, e);
    else
        rc = acct_bad(e, "Unknown entity: %.64s", r->entity);
    /* ids handed out while planning are taken back unless applied */
    if (rc < 0 || (r->flags & ACCT_REQ_DRY_RUN))
        a->next_assoc_id = assoc_id;
    else if (strcmp(r->entity, "qos") == 0)
        a->next_qos_id += (uint32_t)json_array_size(r->names);
    if (rc < 0) {
        acct_plan_free(&p);
        return -1;
    }
    return acct_plan_finish(a, &p, r->flags, result, e);
}
