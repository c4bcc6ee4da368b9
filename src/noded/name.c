/*
 * Node name resolution for sluiced: -N NAME or the host name, and the one
 * line that explains a mismatch (what NodeName= defines, the nearest name,
 * three ways out).
 */
#include "noded/name.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xalloc.h"

/* The description in a message stays under this, so the advice after it
 * fits in a struct err. */
#define NAME_DESCRIBE_MAX 240

size_t name_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = xcalloc(lb + 1, sizeof(*row));
    size_t d;

    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0]; /* row[i-1][j-1] */
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j]; /* row[i-1][j] */
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    d = row[lb];
    free(row);
    return d;
}

/* The numbers in s with their zero padding stripped: "r01n007" -> "1,7,". */
static void numbers_of(const char *s, char *out, size_t len)
{
    size_t o = 0;

    while (*s != '\0' && o + 2 < len) {
        if (!isdigit((unsigned char)*s)) {
            s++;
            continue;
        }
        while (s[0] == '0' && isdigit((unsigned char)s[1]))
            s++;
        while (isdigit((unsigned char)*s) && o + 2 < len)
            out[o++] = *s++;
        out[o++] = ',';
    }
    out[o] = '\0';
}

size_t name_score(const char *host, const char *name)
{
    char nh[HOSTLIST_MAX_NAME + 2], nn[HOSTLIST_MAX_NAME + 2];
    size_t score = 2 * name_distance(host, name);

    numbers_of(host, nh, sizeof(nh));
    numbers_of(name, nn, sizeof(nn));
    if (score > 0 && nh[0] != '\0' && strcmp(nh, nn) == 0)
        score--;
    return score;
}

/* The value of the last number in s, or -1 when it has none. */
static long long last_number(const char *s)
{
    const char *p = s + strlen(s), *end;

    while (p > s && !isdigit((unsigned char)p[-1]))
        p--;
    end = p;
    while (p > s && isdigit((unsigned char)p[-1]))
        p--;
    if (p == end || end - p > 15)
        return -1;
    return strtoll(p, NULL, 10);
}

/* Between names equally near, the one whose last number is closest. */
static unsigned long long number_gap(const char *host, const char *name)
{
    long long a = last_number(host), b = last_number(name);

    if (a < 0 || b < 0)
        return (unsigned long long)-1;
    return (unsigned long long)(a > b ? a - b : b - a);
}

const char *name_nearest(const struct conf *c, const char *host)
{
    const char *best = NULL;
    size_t best_score = (size_t)-1;
    unsigned long long best_gap = (unsigned long long)-1;

    for (size_t i = 0; i < c->n_nodes; i++) {
        const struct conf_node *n = &c->nodes[i];
        size_t s = name_score(host, n->name);
        size_t sh = name_score(host, n->hostname);
        unsigned long long gap = number_gap(host, n->name);
        if (sh < s)
            s = sh;
        if (s < best_score || (s == best_score && gap < best_gap)) {
            best_score = s;
            best_gap = gap;
            best = n->name;
        }
    }
    return best;
}

static bool same_line(const struct conf_node *a, const struct conf_node *b)
{
    return a->loc.line == b->loc.line &&
           (a->loc.file == b->loc.file ||
            (a->loc.file != NULL && b->loc.file != NULL &&
             strcmp(a->loc.file, b->loc.file) == 0));
}

/* "NodeName=EXPR is a,b,c" for nodes [first, end); caller frees. */
static char *describe_line(const struct conf *c, size_t first, size_t end,
                           size_t max_names)
{
    struct hostlist *hl = hostlist_create();
    char *expr, *list, *out;

    for (size_t i = first; i < end; i++)
        hostlist_push_host(hl, c->nodes[i].name);
    expr = hostlist_compress(hl);
    hostlist_destroy(hl);
    hl = hostlist_create();
    for (size_t i = first; i < end && i - first < max_names; i++)
        hostlist_push_host(hl, c->nodes[i].name);
    list = hostlist_join(hl, ",");
    hostlist_destroy(hl);
    out = xasprintf("NodeName=%s is %s%s", expr, list,
                    end - first > max_names ? ",..." : "");
    free(expr);
    free(list);
    return out;
}

char *name_describe(const struct conf *c, size_t max_names)
{
    char buf[NAME_DESCRIBE_MAX + 8] = "";
    size_t first = 0, used = 0;

    if (c->n_nodes == 0)
        return xstrdup("it defines no nodes");
    while (first < c->n_nodes) {
        size_t end = first + 1;
        char *line;
        while (end < c->n_nodes && same_line(&c->nodes[first], &c->nodes[end]))
            end++;
        line = describe_line(c, first, end, max_names);
        if (used > 0 && used + 2 + strlen(line) > NAME_DESCRIBE_MAX) {
            free(line);
            strcpy(buf + used, "; ...");
            break;
        }
        if (used + 2 + strlen(line) > NAME_DESCRIBE_MAX) /* the first line */
            snprintf(buf, sizeof(buf), "%.*s...", NAME_DESCRIBE_MAX - 3, line);
        else
            snprintf(buf + used, sizeof(buf) - used, "%s%s",
                     used > 0 ? "; " : "", line);
        used = strlen(buf);
        free(line);
        first = end;
    }
    return xstrdup(buf);
}

/* The node whose NodeName or NodeHostname is host; *ambiguous when host is
 * the NodeHostname of several. */
static const struct conf_node *match_host(const struct conf *c,
                                          const char *host, bool *ambiguous)
{
    const struct conf_node *found = conf_node_find(c, host);

    *ambiguous = false;
    if (found != NULL)
        return found;
    for (size_t i = 0; i < c->n_nodes; i++) {
        if (strcmp(c->nodes[i].hostname, host) != 0)
            continue;
        if (found != NULL) {
            *ambiguous = true;
            return NULL;
        }
        found = &c->nodes[i];
    }
    return found;
}

static int refuse_requested(const struct conf *c, const char *conf_path,
                            const char *requested, struct err *e)
{
    char *desc = name_describe(c, 8);
    const char *near = name_nearest(c, requested);

    errno = ENOENT;
    if (near != NULL)
        err_set(e, "-N %s: no NodeName \"%s\" in %s (%s); did you mean \"%s\"?",
                requested, requested, conf_path, desc, near);
    else
        err_set(e, "-N %s: no NodeName \"%s\" in %s (%s)", requested, requested,
                conf_path, desc);
    free(desc);
    return -1;
}

static int refuse_host(const struct conf *c, const char *conf_path,
                       const char *full, const char *host, struct err *e)
{
    char *desc = name_describe(c, 8);
    const char *near = name_nearest(c, host);

    errno = ENOENT;
    if (near != NULL)
        err_set(e,
                "hostname \"%s\" is not a NodeName in %s (%s); did you mean "
                "\"%s\"? Rename the host, add NodeHostname=%s, or start with "
                "-N %s",
                full, conf_path, desc, near, host, near);
    else
        err_set(e, "hostname \"%s\" is not a NodeName in %s (%s)", full,
                conf_path, desc);
    free(desc);
    return -1;
}

int name_resolve(const struct conf *c, const char *conf_path,
                 const char *requested, const char *hostname,
                 const struct conf_node **node, struct err *e)
{
    char shortname[HOSTLIST_MAX_NAME + 1];
    const struct conf_node *n;
    bool ambiguous;

    if (requested != NULL) {
        if ((n = conf_node_find(c, requested)) == NULL)
            return refuse_requested(c, conf_path, requested, e);
        *node = n;
        return 0;
    }
    snprintf(shortname, sizeof(shortname), "%.*s", (int)strcspn(hostname, "."),
             hostname);
    n = match_host(c, hostname, &ambiguous);
    if (n == NULL && !ambiguous && strcmp(shortname, hostname) != 0)
        n = match_host(c, shortname, &ambiguous);
    if (ambiguous) {
        errno = EINVAL;
        return err_set(e,
                       "hostname \"%s\" is the NodeHostname of several nodes "
                       "in %s; start with -N NAME",
                       hostname, conf_path);
    }
    if (n == NULL)
        return refuse_host(c, conf_path, hostname, shortname, e);
    *node = n;
    return 0;
}
