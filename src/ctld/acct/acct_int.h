/*
 * Inside the accounting model: the struct behind struct acct, shared by
 * acct.c (records, lookups, load and save), acct_json.c (the JSON forms),
 * acct_set.c (sacctmgr's keys and values) and acct_ops.c (add, modify,
 * delete, list).  Nothing outside these files includes this.
 */
#ifndef SLUICE_CTLD_ACCT_INT_H
#define SLUICE_CTLD_ACCT_INT_H

#include "ctld/acct/acct.h"
#include "ctld/acct/acct_store.h"

/* A growable array of owned record pointers. */
struct acct_vec {
    void **v;
    size_t n;
};

struct acct {
    char *cluster;
    struct acct_store *store; /* NULL: in memory only */
    uint64_t gen;
    uint32_t next_qos_id;
    uint32_t next_assoc_id;
    struct acct_vec vec[ACCT_KIND_COUNT]; /* records of each kind */
};

void acct_vec_push(struct acct_vec *v, void *x);
/* acct_vec_remove: take x out (not freed); false when absent. */
bool acct_vec_remove(struct acct_vec *v, const void *x);
/* acct_vec_replace: put y where x was (x not freed). */
void acct_vec_replace(struct acct_vec *v, const void *x, void *y);

/* String lists: NULL-safe copies, membership, "a,b,c". */
char **acct_strv_dup(char *const *v, size_t n);
void acct_strv_free(char **v, size_t n);
bool acct_strv_has(char *const *v, size_t n, const char *s);
void acct_strv_add(char ***v, size_t *n, const char *s);
void acct_strv_del(char **v, size_t *n, const char *s);
char *acct_strv_join(char *const *v, size_t n); /* caller frees */

/* Record constructors (defaults as in Slurm), copies and destructors. */
struct acct_qos *acct_qos_new(const char *name);
struct acct_qos *acct_qos_dup(const struct acct_qos *q);
void acct_qos_free(struct acct_qos *q);
struct acct_assoc *acct_assoc_new(const char *cluster, const char *account,
                                  const char *user, const char *partition);
struct acct_assoc *acct_assoc_dup(const struct acct_assoc *as);
void acct_assoc_free(struct acct_assoc *as);
struct acct_user *acct_user_new(const char *name, const char *def_account);
struct acct_user *acct_user_dup(const struct acct_user *u);
void acct_user_free(struct acct_user *u);
struct acct_account *acct_account_new(const char *name, const char *parent);
struct acct_account *acct_account_dup(const struct acct_account *ac);
void acct_account_free(struct acct_account *ac);
struct acct_cluster *acct_cluster_new(const char *name);
void acct_cluster_free(struct acct_cluster *c);

/* acct_find_assoc_exact: the association with exactly these fields. */
struct acct_assoc *acct_find_assoc_exact(const struct acct *a,
                                         const char *cluster,
                                         const char *account, const char *user,
                                         const char *partition);
struct acct_cluster *acct_cluster_find(const struct acct *a, const char *name);

/* acct_save: write the record of kind x to the store (no-op in memory). */
int acct_save(struct acct *a, enum acct_kind kind, const void *x,
              struct err *e);
int acct_unsave(struct acct *a, enum acct_kind kind, const void *x,
                struct err *e);
/* acct_changed: relink parents and move the generation. */
void acct_changed(struct acct *a);

/* JSON forms (acct_json.c). */
json_t *acct_limits_to_json(const struct limits *l, bool qos);
int acct_limits_from_json(json_t *o, struct limits *l, struct err *e);
json_t *acct_cluster_to_json(const struct acct_cluster *c);
struct acct_qos *acct_qos_from_json(json_t *o, struct err *e);
struct acct_assoc *acct_assoc_from_json(json_t *o, struct err *e);
struct acct_user *acct_user_from_json(json_t *o, struct err *e);
struct acct_account *acct_account_from_json(json_t *o, struct err *e);
struct acct_cluster *acct_cluster_from_json(json_t *o, struct err *e);
const char *acct_qos_flag_name(uint32_t flag);
int acct_qos_flag_parse(const char *s, uint32_t *flag);
int acct_preempt_mode_parse(const char *s, enum acct_preempt_mode *m);

/*
 * sacctmgr's settable keys (acct_set.c).  Each returns 1 when key is one
 * of its keys and was applied, 0 when key is not its, -1 with e on a bad
 * value (e names the field and the value).  op is "=", "+=" or "-=".
 */
int acct_set_qos(const struct acct *a, struct acct_qos *q, const char *key,
                 const char *op, const char *val, struct err *e);
int acct_set_assoc(const struct acct *a, struct acct_assoc *as, const char *key,
                   const char *op, const char *val, struct err *e);
int acct_set_user(const struct acct *a, struct acct_user *u, const char *key,
                  const char *op, const char *val, unsigned flags,
                  struct err *e);
int acct_set_account(const struct acct *a, struct acct_account *ac,
                     const char *key, const char *op, const char *val,
                     struct err *e);

/*
 * A change being planned (acct_ops.c): records added (old NULL), replaced
 * (both) or removed (new NULL), with the lines that describe it.  Nothing
 * touches the model until acct_plan_apply; acct_plan_free drops the new
 * records of a plan that was not applied.
 */
struct acct_change {
    enum acct_kind kind;
    void *old_rec;
    void *new_rec;
};

struct acct_plan {
    struct acct_change *c;
    size_t n;
    json_t *lines; /* array of strings */
    json_t *notes; /* array of strings, for stderr */
};

void acct_plan_init(struct acct_plan *p);
void acct_plan_add(struct acct_plan *p, enum acct_kind kind, void *old_rec,
                   void *new_rec);
/* acct_plan_new_of: the planned replacement of old_rec, or NULL. */
void *acct_plan_new_of(const struct acct_plan *p, const void *old_rec);
void acct_plan_line(struct acct_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int acct_plan_apply(struct acct *a, struct acct_plan *p, struct err *e);
void acct_plan_free(struct acct_plan *p);
void acct_record_free(enum acct_kind kind, void *x);
/* acct_plan_result: {"changes": lines, "notes": notes}; frees the plan. */
int acct_plan_finish(struct acct *a, struct acct_plan *p, unsigned flags,
                     json_t **result, struct err *e);

/* Request parts (acct_ops.c). */
int acct_bad(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* acct_where: the comma list given for any of the aliases, or NULL. */
const char *acct_where(json_t *where, const char *const *aliases);
/* acct_where_has: list (a comma list) names s; NULL list matches all. */
bool acct_where_has(const char *list, const char *s);
/* acct_where_check: every key of where is one of valid (NULL-ended). */
int acct_where_check(const char *entity, json_t *where,
                     const char *const *valid, struct err *e);
/* acct_set_item: the i-th of set as key, op, value; -1 with e if bad. */
int acct_set_item(json_t *set, size_t i, const char **key, const char **op,
                  const char **val, struct err *e);
/* acct_assoc_check: DefaultQOS within the QOS list the association gets. */
int acct_assoc_check(const struct acct_assoc *as,
                     const struct acct_assoc *parent, struct err *e);

#endif
