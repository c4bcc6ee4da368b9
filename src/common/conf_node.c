/*
 * NodeName= lines: NodeName=DEFAULT templates, hostlist expansion into one
 * struct conf_node per name, Slurm's rules for deriving CPUs from the
 * board/socket/core/thread topology, and the index of node names.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

/* The most CPUs (and sockets, cores, threads) of one node, as in Slurm. */
#define NODE_MAX_CPUS 65535

static const struct gres_list conf_gres_empty;

static bool gres_equal(const struct gres_list *a, const struct gres_list *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->items[i].name, b->items[i].name) != 0 ||
            strcmp(a->items[i].type, b->items[i].type) != 0 ||
            a->items[i].count != b->items[i].count ||
            strcmp(a->items[i].sockets, b->items[i].sockets) != 0)
            return false;
    return true;
}

/* Gres=: the list is shared by every node that has the same one as the
 * line before (a canonical print repeats it once per node). */
static int parse_gres(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf *c = ctx;
    struct conf_node *n = obj;
    struct gres_list tmp;
    struct gres_list *l;

    if (gres_parse(val, &tmp, e) < 0)
        return -1;
    if (tmp.n == 0) {
        n->gres = &conf_gres_empty;
        return 0;
    }
    if (c->priv->n_gres_pool > 0 &&
        gres_equal(c->priv->gres_pool[c->priv->n_gres_pool - 1], &tmp)) {
        n->gres = c->priv->gres_pool[c->priv->n_gres_pool - 1];
        return 0;
    }
    l = xmalloc(sizeof(*l));
    *l = tmp;
    c->priv->gres_pool =
        xreallocarray(c->priv->gres_pool, c->priv->n_gres_pool + 1, sizeof(l));
    c->priv->gres_pool[c->priv->n_gres_pool++] = l;
    n->gres = l;
    return 0;
}

static void print_gres(const void *obj, FILE *fp, const char *pre,
                       const char *suf)
{
    const struct conf_node *n = obj;
    char buf[4096];

    if (n->gres->n == 0)
        return;
    fprintf(fp, "%sGres=%s%s", pre, gres_format(n->gres, buf, sizeof(buf)),
            suf);
}

static json_t *json_gres(const void *obj)
{
    const struct conf_node *n = obj;
    char buf[4096];

    return json_string(gres_format(n->gres, buf, sizeof(buf)));
}

#define OFF(f) offsetof(struct conf_node, f)
#define K_STR(n, j, f, fl)                                                     \
    {                                                                          \
        .name = n, .json = j, .kind = CK_STR, .off = OFF(f), .flags = fl       \
    }
#define K_INT(k, n, j, f, lo, hi, fl)                                          \
    {                                                                          \
        .name = n, .json = j, .kind = k, .off = OFF(f), .min = lo, .max = hi,  \
        .flags = fl                                                            \
    }

/* The keys of a NodeName= line after NodeName itself, in print order. */
const struct conf_key conf_node_keys[] = {
    K_STR("NodeHostname", "hostname", hostname, 0),
    K_STR("NodeAddr", "addr", addr, 0),
    K_INT(CK_U16, "Port", "port", port, 1, 65535, 0),
    K_INT(CK_U32, "CPUs", "cpus", cpus, 1, NODE_MAX_CPUS, 0),
    K_INT(CK_U32, "Boards", "boards", boards, 1, NODE_MAX_CPUS, 0),
    K_INT(CK_U32, "Sockets", "sockets", sockets, 1, NODE_MAX_CPUS, 0),
    K_INT(CK_U32, "SocketsPerBoard", "sockets_per_board", sockets_per_board, 1,
          NODE_MAX_CPUS, CKF_NOPRINT),
    K_INT(CK_U32, "CoresPerSocket", "cores_per_socket", cores_per_socket, 1,
          NODE_MAX_CPUS, 0),
    K_INT(CK_U32, "ThreadsPerCore", "threads_per_core", threads_per_core, 1,
          NODE_MAX_CPUS, 0),
    {.name = "RealMemory",
     .json = "mem_mib",
     .kind = CK_MEM,
     .off = OFF(mem_mib),
     .min = 1},
    {.name = "TmpDisk",
     .json = "tmp_disk_mib",
     .kind = CK_MEM,
     .off = OFF(tmp_disk_mib),
     .flags = CKF_OMIT_ZERO},
    {.name = "Gres",
     .json = "gres",
     .kind = CK_CUSTOM,
     .parse = parse_gres,
     .print = print_gres,
     .to_json = json_gres},
    K_STR("Features", "features", features, CKF_OMIT_EMPTY),
    K_STR("Feature", NULL, features, CKF_NOPRINT),
    K_INT(CK_U32, "Weight", "weight", weight, 1, UINT32_MAX - 1, 0),
    {.name = "State",
     .json = "state",
     .kind = CK_ENUM,
     .off = OFF(state),
     .enums = conf_node_state_names},
    {.name = NULL},
};

static uint64_t node_bit(const char *name)
{
    const struct conf_key *k = conf_key_find(conf_node_keys, name);

    return (uint64_t)1 << (k - conf_node_keys);
}

void conf_node_tmpl_init(struct conf_node_tmpl *t)
{
    struct conf_node *n = &t->node;

    memset(t, 0, sizeof(*t));
    n->hostname = xstrdup("");
    n->addr = xstrdup("");
    n->features = xstrdup("");
    n->cpus = 1;
    n->boards = 1;
    n->sockets = 1;
    n->sockets_per_board = 1;
    n->cores_per_socket = 1;
    n->threads_per_core = 1;
    n->mem_mib = 1;
    n->gres = &conf_gres_empty;
    n->weight = 1;
    n->state = CONF_NODE_UNKNOWN;
}

void conf_node_free(struct conf_node *n)
{
    free(n->name);
    free(n->hostname);
    free(n->addr);
    free(n->features);
}

void conf_node_tmpl_free(struct conf_node_tmpl *t)
{
    conf_node_free(&t->node);
}

static void node_tmpl_copy(struct conf_node_tmpl *dst,
                           const struct conf_node_tmpl *src)
{
    *dst = *src;
    dst->node.name = NULL;
    dst->node.hostname = xstrdup(src->node.hostname);
    dst->node.addr = xstrdup(src->node.addr);
    dst->node.features = xstrdup(src->node.features);
}

/* The keys of the line after NodeName=, applied to t. */
static int node_apply(struct conf *c, const struct conf_line *ln,
                      struct conf_node_tmpl *t)
{
    uint64_t line_set = 0, bit;
    int rc = 0;
    struct err e;

    for (size_t i = 1; i < ln->n; i++) {
        const struct conf_pair *p = &ln->pairs[i];
        const struct conf_key *k = conf_key_find(conf_node_keys, p->key);
        struct conf_loc loc = {ln->file, p->line, p->col};

        if (k == NULL) {
            conf_diag_at(c, CONF_WARNING, &loc,
                         "unknown NodeName key '%.64s' ignored", p->key);
            continue;
        }
        if (conf_key_set(k, c, &t->node, p->value, &e) < 0) {
            conf_diag_at(c, CONF_ERROR, &loc, "%s", e.text);
            rc = -1;
            continue;
        }
        bit = (uint64_t)1 << (k - conf_node_keys);
        if (line_set & bit)
            conf_diag_at(c, CONF_WARNING, &loc,
                         "%s given twice on this line; the last value is "
                         "used",
                         k->name);
        line_set |= bit;
        t->set |= bit;
    }
    return rc;
}

/* Sockets from Boards and SocketsPerBoard, or the other way round. */
static int node_sockets(struct conf_node_tmpl *t, struct err *e)
{
    struct conf_node *n = &t->node;
    bool has_s = t->set & node_bit("Sockets");
    bool has_spb = t->set & node_bit("SocketsPerBoard");
    uint64_t total = (uint64_t)n->boards * n->sockets_per_board;

    if (has_s && has_spb && n->sockets != total)
        return err_set(e, "Sockets=%u is not Boards*SocketsPerBoard (%llu)",
                       n->sockets, (unsigned long long)total);
    if (has_spb) {
        if (total > NODE_MAX_CPUS)
            return err_set(e, "Boards*SocketsPerBoard is over %d",
                           NODE_MAX_CPUS);
        n->sockets = (uint32_t)total;
    } else if (has_s) {
        if (n->sockets % n->boards != 0)
            return err_set(e, "Sockets=%u is not a multiple of Boards=%u",
                           n->sockets, n->boards);
        n->sockets_per_board = n->sockets / n->boards;
    } else {
        n->sockets = n->boards;
        n->sockets_per_board = 1;
    }
    return 0;
}

/*
 * Slurm's rules: without CPUs, CPUs = Sockets*CoresPerSocket*ThreadsPerCore;
 * CPUs alone means that many single-core sockets; CPUs that match neither
 * the product nor Sockets*CoresPerSocket are reset to the product.
 */
static int node_topology(struct conf *c, const struct conf_line *ln,
                         struct conf_node_tmpl *t)
{
    struct conf_node *n = &t->node;
    struct conf_loc loc = {ln->file, ln->pairs[0].line, ln->pairs[0].col};
    uint64_t topo = node_bit("Sockets") | node_bit("SocketsPerBoard") |
                    node_bit("CoresPerSocket") | node_bit("ThreadsPerCore");
    uint64_t product;
    struct err e;

    if ((t->set & node_bit("CPUs")) && !(t->set & topo)) {
        if (n->cpus % n->boards != 0) {
            conf_diag_at(c, CONF_ERROR, &loc,
                         "CPUs=%u is not a multiple of Boards=%u", n->cpus,
                         n->boards);
            return -1;
        }
        n->sockets = n->cpus;
        n->sockets_per_board = n->cpus / n->boards;
        return 0;
    }
    if (node_sockets(t, &e) < 0) {
        conf_diag_at(c, CONF_ERROR, &loc, "%s", e.text);
        return -1;
    }
    product = (uint64_t)n->sockets * n->cores_per_socket * n->threads_per_core;
    if (product > NODE_MAX_CPUS) {
        conf_diag_at(c, CONF_ERROR, &loc,
                     "Sockets*CoresPerSocket*ThreadsPerCore = %llu is over %d",
                     (unsigned long long)product, NODE_MAX_CPUS);
        return -1;
    }
    if (!(t->set & node_bit("CPUs"))) {
        n->cpus = (uint32_t)product;
    } else if (n->cpus != product &&
               n->cpus != n->sockets * n->cores_per_socket) {
        conf_diag_at(c, CONF_WARNING, &loc,
                     "CPUs=%u does not match "
                     "Sockets*CoresPerSocket*ThreadsPerCore (%llu); using "
                     "%llu, as Slurm does",
                     n->cpus, (unsigned long long)product,
                     (unsigned long long)product);
        n->cpus = (uint32_t)product;
    }
    return 0;
}

static uint64_t node_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

long conf_node_lookup(const struct conf *c, const char *name)
{
    const struct conf_priv *pv = c->priv;
    size_t mask = pv->node_index_cap - 1, i;

    if (pv->node_index_cap == 0)
        return -1;
    for (i = node_hash(name) & mask; pv->node_index[i] != 0; i = (i + 1) & mask)
        if (strcmp(c->nodes[pv->node_index[i] - 1].name, name) == 0)
            return (long)pv->node_index[i] - 1;
    return -1;
}

static void node_index_put(struct conf_priv *pv, const struct conf *c,
                           size_t idx)
{
    size_t mask = pv->node_index_cap - 1;
    size_t i = node_hash(c->nodes[idx].name) & mask;

    while (pv->node_index[i] != 0)
        i = (i + 1) & mask;
    pv->node_index[i] = idx + 1;
}

/* Room in the index for want nodes in all, at most half full. */
static void node_index_grow(struct conf *c, size_t want)
{
    struct conf_priv *pv = c->priv;
    size_t cap = pv->node_index_cap ? pv->node_index_cap : 64;

    while (cap < 2 * want)
        cap *= 2;
    if (cap == pv->node_index_cap)
        return;
    free(pv->node_index);
    pv->node_index = xcalloc(cap, sizeof(size_t));
    pv->node_index_cap = cap;
    for (size_t i = 0; i < c->n_nodes; i++)
        node_index_put(pv, c, i);
}

/* hosts: NodeHostname/NodeAddr expanded to one per node, or NULL. */
static int node_hosts(struct conf *c, const struct conf_line *ln,
                      const char *key, const char *expr, size_t n,
                      struct hostlist **out)
{
    struct conf_loc loc = {ln->file, ln->pairs[0].line, ln->pairs[0].col};
    struct err e;

    *out = NULL;
    if (expr[0] == '\0')
        return 0;
    *out = hostlist_expand(expr, &e);
    if (*out == NULL) {
        conf_diag_at(c, CONF_ERROR, &loc, "%s=%.64s: %s", key, expr, e.text);
        return -1;
    }
    if (hostlist_count(*out) != n) {
        conf_diag_at(c, CONF_ERROR, &loc,
                     "%s=%.64s names %zu hosts for %zu nodes", key, expr,
                     hostlist_count(*out), n);
        hostlist_destroy(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

static void node_add(struct conf *c, const struct conf_node_tmpl *t,
                     const char *name, const char *host, const char *addr,
                     const struct conf_loc *loc)
{
    struct conf_node *n = &c->nodes[c->n_nodes];

    *n = t->node;
    n->name = xstrdup(name);
    n->hostname = xstrdup(host ? host : name);
    n->addr = xstrdup(addr ? addr : n->hostname);
    n->features = xstrdup(t->node.features);
    n->loc = *loc;
    node_index_put(c->priv, c, c->n_nodes++);
}

static void node_instantiate(struct conf *c, const struct conf_line *ln,
                             const struct conf_node_tmpl *t)
{
    const struct conf_pair *p0 = &ln->pairs[0];
    struct conf_loc loc = {ln->file, p0->line, p0->col};
    struct hostlist *names, *hosts = NULL, *addrs = NULL;
    size_t n;
    long dup;
    struct err e;

    names = hostlist_expand(p0->value, &e);
    if (names == NULL) {
        conf_diag_at(c, CONF_ERROR, &loc, "NodeName=%.64s: %s", p0->value,
                     e.text);
        return;
    }
    n = hostlist_count(names);
    if (c->n_nodes + n > CONF_MAX_NODES) {
        conf_diag_at(c, CONF_ERROR, &loc,
                     "NodeName=%.64s: more than %d nodes in all", p0->value,
                     CONF_MAX_NODES);
        goto out;
    }
    if (node_hosts(c, ln, "NodeHostname", t->node.hostname, n, &hosts) < 0 ||
        node_hosts(c, ln, "NodeAddr", t->node.addr, n, &addrs) < 0)
        goto out;
    node_index_grow(c, c->n_nodes + n);
    if (c->n_nodes + n > c->priv->nodes_cap) {
        /* geometric growth: a canonical print has one line per node */
        size_t cap = c->priv->nodes_cap ? 2 * c->priv->nodes_cap : 16;
        while (cap < c->n_nodes + n)
            cap *= 2;
        c->nodes = xreallocarray(c->nodes, cap, sizeof(*c->nodes));
        c->priv->nodes_cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = hostlist_nth(names, i);
        if ((dup = conf_node_lookup(c, name)) >= 0) {
            conf_diag_at(c, CONF_ERROR, &loc, "%s already defined at %s:%d",
                         name, c->nodes[dup].loc.file, c->nodes[dup].loc.line);
            break;
        }
        node_add(c, t, name, hosts ? hostlist_nth(hosts, i) : NULL,
                 addrs ? hostlist_nth(addrs, i) : NULL, &loc);
    }
out:
    hostlist_destroy(names);
    hostlist_destroy(hosts);
    hostlist_destroy(addrs);
}

void conf_node_line(struct conf *c, const struct conf_line *ln)
{
    struct conf_node_tmpl t;
    bool is_default = strcasecmp(ln->pairs[0].value, "DEFAULT") == 0;

    node_tmpl_copy(&t, &c->priv->node_default);
    if (node_apply(c, ln, &t) < 0)
        goto out;
    if (is_default) {
        conf_node_tmpl_free(&c->priv->node_default);
        c->priv->node_default = t;
        return;
    }
    if (node_topology(c, ln, &t) == 0)
        node_instantiate(c, ln, &t);
out:
    conf_node_tmpl_free(&t);
}
