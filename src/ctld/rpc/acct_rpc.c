/*
 * ACCT_ADD, ACCT_MODIFY, ACCT_DELETE and ACCT_LIST (docs/protocol.md): the
 * requester's identity comes from its credential or SO_PEERCRED, never
 * from the body.  Changes need an administrator (uid 0, the controller's
 * uid, or AdminLevel=Administrator) or an operator (everything but
 * AdminLevel); everyone may list.  A change is written inside the
 * iteration's transaction, so its reply goes out after the commit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/acct/acct.h"
#include "ctld/acct/acct_events.h"
#include "ctld/core/loop.h"
#include "ctld/rpc/rpc.h"

static int bad_req(struct err *e, const char *what)
{
    errno = EINVAL;
    return err_set(e, "%s", what);
}

/* Bounds on one request (docs/accounting.md): names are 1-64 characters
 * when added, other values (descriptions, comma lists, limits) at most
 * ACCT_MAX_VALUE bytes. */
#define ACCT_MAX_NAMES 1024
#define ACCT_MAX_SETS 64
#define ACCT_MAX_WHERE 32
#define ACCT_MAX_VALUE 4096

/* A string of at most ACCT_MAX_VALUE bytes at what, if a string. */
static int check_value(json_t *v, const char *what, const char *key,
                       struct err *e)
{
    if (!json_is_string(v) || json_string_length(v) <= ACCT_MAX_VALUE)
        return 0;
    errno = EINVAL;
    return err_set(e, "%s %.64s is %zu bytes, the limit is %u", what, key,
                   json_string_length(v), ACCT_MAX_VALUE);
}

/* The sizes of names, where and set, before anything reads them. */
static int check_sizes(const struct acct_req *r, struct err *e)
{
    const char *key;
    json_t *v;
    size_t i;

    errno = EINVAL;
    if (json_array_size(r->names) > ACCT_MAX_NAMES)
        return err_set(e, "names has %zu entries, the limit is %u",
                       json_array_size(r->names), ACCT_MAX_NAMES);
    if (json_array_size(r->set) > ACCT_MAX_SETS)
        return err_set(e, "set has %zu entries, the limit is %u",
                       json_array_size(r->set), ACCT_MAX_SETS);
    if (json_object_size(r->where) > ACCT_MAX_WHERE)
        return err_set(e, "where has %zu conditions, the limit is %u",
                       json_object_size(r->where), ACCT_MAX_WHERE);
    json_array_foreach(r->names, i, v)
    {
        if (check_value(v, "name", "", e) < 0)
            return -1;
    }
    json_object_foreach(r->where, key, v)
    {
        if (check_value(v, "where", key, e) < 0)
            return -1;
    }
    json_array_foreach(r->set, i, v)
    {
        json_t *k = json_object_get(v, "key");
        if (check_value(k, "set key", "", e) < 0 ||
            check_value(json_object_get(v, "value"), "set",
                        json_is_string(k) ? json_string_value(k) : "", e) < 0)
            return -1;
    }
    return 0;
}

static const char *entity_of(json_t *body)
{
    static const char *const names[] = {"qos", "account", "user", "association",
                                        "cluster"};
    const char *s = json_string_value(json_object_get(body, "entity"));

    for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0)
            return names[i];
    return NULL;
}

static int parse_req(json_t *body, struct acct_req *r, struct err *e)
{
    json_t *dry = json_object_get(body, "dry_run");

    memset(r, 0, sizeof(*r));
    r->entity = entity_of(body);
    if (r->entity == NULL)
        return bad_req(e, "entity: expected qos, account, user, association "
                          "or cluster");
    r->names = json_object_get(body, "names");
    r->where = json_object_get(body, "where");
    r->set = json_object_get(body, "set");
    if (r->names != NULL && !json_is_array(r->names))
        return bad_req(e, "names: expected an array of names");
    if (r->where != NULL && !json_is_null(r->where) &&
        !json_is_object(r->where))
        return bad_req(e, "where: expected an object");
    if (r->set != NULL && !json_is_array(r->set))
        return bad_req(e, "set: expected an array of {key, op, value}");
    if (dry != NULL && !json_is_boolean(dry))
        return bad_req(e, "dry_run: expected true or false");
    if (json_is_true(dry))
        r->flags |= ACCT_REQ_DRY_RUN;
    return check_sizes(r, e);
}

/* May the sender change accounting?  Sets ACCT_REQ_ADMIN_LEVEL for
 * administrators. */
static int authorize(struct rpc *r, const char *verb, struct acct_req *req,
                     struct err *e)
{
    const struct rpc_env *env = r->env;
    enum acct_admin level = r->who.uid == 0 || r->who.uid == env->self_uid
                                ? ACCT_ADMIN_ADMIN
                                : acct_user_admin_uid(env->acct, r->who.uid);
    char name[256];

    if (level == ACCT_ADMIN_ADMIN)
        req->flags |= ACCT_REQ_ADMIN_LEVEL;
    if (level != ACCT_ADMIN_NONE)
        return 0;
    auth_uid_name(r->who.uid, name, sizeof(name));
    errno = EPERM;
    return err_set(e,
                   "Only admins/operators can %s %s: user %s (uid %u) has "
                   "AdminLevel=None",
                   verb, req->entity, name, (unsigned)r->who.uid);
}

typedef int (*change_fn)(struct acct *, const struct acct_req *, json_t **,
                         struct err *);

static int change(struct rpc *r, const char *verb, change_fn fn, json_t **reply,
                  struct err *e)
{
    struct acct_req req;
    char name[256];

    if (parse_req(r->req->body, &req, e) < 0 || authorize(r, verb, &req, e) < 0)
        return -1;
    if (!(req.flags & ACCT_REQ_DRY_RUN) && loop_write(r->env->loop, e) < 0)
        return -1;
    if (fn(r->env->acct, &req, reply, e) < 0)
        return -1;
    if (!(req.flags & ACCT_REQ_DRY_RUN)) {
        auth_uid_name(r->who.uid, name, sizeof(name));
        log_info("acct %s entity=%s by=%s", verb, req.entity, name);
        loop_want_pass(r->env->loop); /* limits may have moved */
    }
    return 0;
}

int rpc_acct_add(struct rpc *r, json_t **reply, struct err *e)
{
    return change(r, "add", acct_add, reply, e);
}

int rpc_acct_modify(struct rpc *r, json_t **reply, struct err *e)
{
    return change(r, "modify", acct_modify, reply, e);
}

int rpc_acct_delete(struct rpc *r, json_t **reply, struct err *e)
{
    return change(r, "delete", acct_delete, reply, e);
}

int rpc_acct_list(struct rpc *r, json_t **reply, struct err *e)
{
    struct acct_req req;
    const char *entity =
        json_string_value(json_object_get(r->req->body, "entity"));

    if (entity != NULL && strcmp(entity, "events") == 0) {
        json_t *where = json_object_get(r->req->body, "where");
        *reply = acct_events_list(r->env->persist, r->env->conf->cluster_name,
                                  json_is_object(where) ? where : NULL, e);
        return *reply ? 0 : -1;
    }

    if (parse_req(r->req->body, &req, e) < 0)
        return -1;
    *reply = acct_list(r->env->acct, &req, e);
    return *reply ? 0 : -1;
}
