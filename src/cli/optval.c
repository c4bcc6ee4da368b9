/*
 * The option values sbatch and srun share (optval.h), each read once for
 * both verbs with the common parsers (timefmt, value, hostlist, gres).
 */
#include "cli/optval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gres.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

int optval_time_limit(const char *arg, int64_t *secs, struct err *e)
{
    int64_t v;

    if (timefmt_parse(arg, &v, e) < 0)
        return -1;
    /* As in Slurm, a limit of 0 asks for none. */
    *secs = v == TIMEFMT_INFINITE || v == 0 ? -1 : v;
    return 0;
}

static int node_count(const char *arg, uint32_t *out, struct err *e)
{
    uint64_t v;

    if (value_parse_u64(arg, 1, OPTVAL_MAX_NODES, &v, e) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int optval_nodes(const char *arg, uint32_t *min, uint32_t *max, struct err *e)
{
    const char *dash = strchr(arg, '-');
    char *lo = dash ? xstrndup(arg, (size_t)(dash - arg)) : xstrdup(arg);
    uint32_t a, b;
    int rc = node_count(lo, &a, e);

    free(lo);
    if (rc < 0)
        return -1;
    b = a;
    if (dash != NULL && node_count(dash + 1, &b, e) < 0)
        return -1;
    if (b < a)
        return err_inval(e, "the maximum node count is below the minimum");
    *min = a;
    *max = b;
    return 0;
}

char *optval_hosts(const char *arg, struct err *e)
{
    struct hostlist *hl = hostlist_expand(arg, e);
    char *s;

    if (hl == NULL)
        return NULL;
    if (hostlist_count(hl) == 0) {
        hostlist_destroy(hl);
        err_inval(e, "empty node list");
        return NULL;
    }
    hostlist_sort_uniq(hl);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

int optval_gpus(const char *arg, char *type, size_t type_len, uint64_t *count,
                struct err *e)
{
    struct gres_list l;
    const char *v = strncmp(arg, "gpu:", 4) == 0 ? arg + 4 : arg;
    const char *n = strrchr(v, ':') ? strrchr(v, ':') + 1 : v;
    char *text = xasprintf("gpu:%s", v);
    int rc = gres_parse(text, &l, e);

    free(text);
    if (rc < 0)
        return -1;
    /* The count is needed: "h200" alone is not one GPU. */
    if (n[0] == '\0' || strspn(n, "0123456789") != strlen(n) || l.n != 1 ||
        strcmp(l.items[0].name, "gpu") != 0 || l.items[0].sockets[0] != '\0')
        return err_inval(e, "expected a GPU count, optionally with a type "
                            "(2, h200:2)");
    snprintf(type, type_len, "%s", l.items[0].type);
    *count = l.items[0].count;
    return 0;
}
