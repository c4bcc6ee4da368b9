/*
 * AuthInfo, read the same way by sluicectld, sluiced and the CLI: Slurm's
 * comma-separated options ("socket=/run/munge/munge.socket.2"), or a bare
 * path, naming auth/key's key file or auth/munge's socket.
 */
#include "common/auth.h"

#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xalloc.h"

/* The value of NAME=VALUE among info's comma-separated options, or NULL
 * (also when the value is empty).  Caller frees. */
static char *info_option(const char *info, const char *name)
{
    size_t nl = strlen(name);

    for (const char *p = info; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n > nl + 1 && strncmp(p, name, nl) == 0 && p[nl] == '=')
            return xstrndup(p + nl + 1, n - nl - 1);
        p += n;
        if (*p == ',')
            p++;
    }
    return NULL;
}

char *auth_info_path(enum auth_type type, const char *info)
{
    const char *name = type == AUTH_KEY ? "key" : "socket";
    char *path;

    if (info == NULL)
        info = "";
    if ((path = info_option(info, name)) != NULL)
        return path;
    if (info[0] != '\0' && strpbrk(info, "=,") == NULL)
        return xstrdup(info);
    return type == AUTH_KEY ? xstrdup(AUTH_KEY_DEFAULT_PATH) : NULL;
}

struct auth *auth_create_conf(const struct conf *c, struct err *e)
{
    enum auth_type type = c->auth_type == CONF_AUTH_KEY ? AUTH_KEY : AUTH_MUNGE;
    char *path = auth_info_path(type, c->auth_info);
    struct auth *a = auth_create(type, path, e);

    free(path);
    return a;
}
