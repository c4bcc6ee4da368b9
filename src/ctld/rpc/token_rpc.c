/*
 * AUTH_TOKEN: `scontrol token [lifespan=N] [username=U]`, an auth/jwt
 * token for the REST API signed with the controller's jwt key.  A user
 * gets tokens for themself; root and the controller's own user (Slurm's
 * SlurmUser) for anyone, as in Slurm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/jwt.h"
#include "common/log.h"
#include "ctld/rpc/rpc.h"

int rpc_auth_token(struct rpc *r, json_t **reply, struct err *e)
{
    json_t *body = r->req->body;
    json_t *jlife = json_object_get(body, "lifespan");
    const char *want = json_string_value(json_object_get(body, "username"));
    char self[64];
    const char *user = auth_uid_name(r->who.uid, self, sizeof(self));
    json_int_t life = JWT_LIFESPAN_DEFAULT_S;
    time_t now = time(NULL);
    char *token;

    if (r->env->jwt == NULL) {
        errno = EOPNOTSUPP;
        return err_set(e, "auth/jwt is not configured: set "
                          "AuthAltTypes=auth/jwt and "
                          "AuthAltParameters=jwt_key=PATH (docs/rest.md)");
    }
    if (jlife != NULL) {
        if (!json_is_integer(jlife) || json_integer_value(jlife) < 1 ||
            json_integer_value(jlife) > JWT_LIFESPAN_MAX_S)
            return err_inval(e, "lifespan: 1 to %d seconds",
                             JWT_LIFESPAN_MAX_S);
        life = json_integer_value(jlife);
    }
    if (json_object_get(body, "username") != NULL &&
        (want == NULL || *want == '\0'))
        return err_inval(e, "username: a user name is needed");
    if (want != NULL && strcmp(want, user) != 0) {
        if (r->who.uid != 0 && r->who.uid != r->env->self_uid) {
            errno = EPERM;
            return err_set(e,
                           "only root or the controller's user may get a "
                           "token for another user (%.64s)",
                           want);
        }
        user = want;
    }
    token = jwt_issue(r->env->jwt, user, now, now + (time_t)life, e);
    if (token == NULL)
        return -1;
    log_info("uid=%u token issued user=%s lifespan_s=%lld", r->who.uid, user,
             (long long)life);
    *reply = json_pack("{s:s, s:s, s:I}", "token", token, "username", user,
                       "expires", (json_int_t)(now + life));
    free(token);
    return 0;
}
