/*
 * Node GPU inventories (see nodegpu.h): parsed from registrations or made
 * from Gres=, fitted to the configuration, checked against it, and turned
 * into the scheduler's model.
 */
#include "ctld/cluster/nodegpu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void nodegpu_fini(struct nodegpu_inv *inv)
{
    if (inv == NULL)
        return;
    for (size_t i = 0; i < inv->n; i++)
        free(inv->v[i].links);
    free(inv->v);
    free(inv->model);
    free(inv->link_words);
    memset(inv, 0, sizeof(*inv));
}

long nodegpu_find(const struct nodegpu_inv *inv, uint32_t index)
{
    for (size_t i = 0; i < inv->n; i++)
        if (inv->v[i].index == index)
            return (long)i;
    return -1;
}

/* The scheduler's view of inv: types, and link bitmaps by position. */
static void build_model(struct nodegpu_inv *inv)
{
    size_t words = SCHED_GPU_WORDS(inv->n);
    bool any = false;

    free(inv->model);
    free(inv->link_words);
    inv->link_words = NULL;
    inv->model = xcalloc(inv->n ? inv->n : 1, sizeof(*inv->model));
    for (size_t i = 0; i < inv->n; i++)
        any = any || inv->v[i].n_links > 0;
    if (any)
        inv->link_words = xcalloc(inv->n * words, sizeof(uint64_t));
    for (size_t i = 0; i < inv->n; i++) {
        const struct nodegpu *g = &inv->v[i];
        uint64_t *w = any ? inv->link_words + i * words : NULL;
        inv->model[i].type = g->type;
        for (size_t k = 0; w != NULL && k < g->n_links; k++) {
            long p = nodegpu_find(inv, g->links[k]);
            if (p >= 0 && (size_t)p != i)
                w[p / 64] |= UINT64_C(1) << (p % 64);
        }
        inv->model[i].links = g->n_links > 0 ? w : NULL;
    }
}

static struct nodegpu *add(struct nodegpu_inv *inv, uint32_t index,
                           const char *type)
{
    struct nodegpu *g;

    inv->v = xreallocarray(inv->v, inv->n + 1, sizeof(*inv->v));
    g = &inv->v[inv->n++];
    memset(g, 0, sizeof(*g));
    g->index = index;
    snprintf(g->type, sizeof(g->type), "%s", type ? type : "");
    return g;
}

/* Count-only GPUs for each "gpu" item of l, numbered from 0. */
static void from_list(const struct gres_list *l, struct nodegpu_inv *out)
{
    uint32_t next = 0;

    for (size_t i = 0; i < l->n; i++) {
        const struct gres_item *it = &l->items[i];
        if (strcmp(it->name, "gpu") != 0)
            continue;
        for (uint64_t k = 0; k < it->count && next < SCHED_GPU_MAX; k++)
            add(out, next++, it->type);
    }
}

void nodegpu_from_conf(const struct gres_list *cfg, struct nodegpu_inv *out)
{
    memset(out, 0, sizeof(*out));
    from_list(cfg, out);
    build_model(out);
}

/* The index of the GPU at list position k, or -1. */
static long index_at(json_t *list, size_t k)
{
    json_t *v = json_object_get(json_array_get(list, k), "index");

    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

/* links: as gres.conf Links=, one number per GPU of the list (its active
 * NVLinks to that GPU, -1 for itself): [-1, 2, 0, 0] or "-1,2,0,0". */
static void parse_links(json_t *links, json_t *list, struct nodegpu *g)
{
    size_t n = json_array_size(list), i;
    const char *s = json_string_value(links);

    g->links = xcalloc(n + 1, sizeof(*g->links));
    for (i = 0; json_is_array(links) && i < json_array_size(links) && i < n;
         i++) {
        json_t *v = json_array_get(links, i);
        if (json_is_integer(v) && json_integer_value(v) > 0 &&
            index_at(list, i) >= 0)
            g->links[g->n_links++] = (uint32_t)index_at(list, i);
    }
    for (i = 0; s != NULL && *s != '\0' && i < n; i++) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s)
            break;
        if (x > 0 && index_at(list, i) >= 0)
            g->links[g->n_links++] = (uint32_t)index_at(list, i);
        s = *end == ',' ? end + 1 : end;
    }
}

static int parse_one(json_t *list, size_t i, struct nodegpu_inv *out,
                     struct err *e)
{
    json_t *o = json_array_get(list, i);
    json_t *idx = json_object_get(o, "index");
    json_t *type = json_object_get(o, "type");
    const char *t = json_is_string(type) ? json_string_value(type) : "";
    struct gres_list l;
    char item[GRES_NAME_MAX * 2];

    if (!json_is_object(o) || !json_is_integer(idx) ||
        json_integer_value(idx) < 0 || json_integer_value(idx) >= SCHED_GPU_MAX)
        return err_inval(e, "gpus[%zu]: expected {\"index\": 0..%d, ...}", i,
                         SCHED_GPU_MAX - 1);
    if (type != NULL && !json_is_null(type) && !json_is_string(type))
        return err_inval(e, "gpus[%zu].type: expected a string", i);
    snprintf(item, sizeof(item), "gpu:%s:1", t);
    if (t[0] != '\0' && gres_parse(item, &l, NULL) < 0)
        return err_inval(e, "gpus[%zu].type \"%.40s\": not a GRES type", i, t);
    if (nodegpu_find(out, (uint32_t)json_integer_value(idx)) >= 0)
        return err_inval(e,
                         "gpus[%zu]: index %" JSON_INTEGER_FORMAT " repeated",
                         i, json_integer_value(idx));
    parse_links(json_object_get(o, "links"), list,
                add(out, (uint32_t)json_integer_value(idx), t));
    return 0;
}

int nodegpu_parse(json_t *gpus, const char *gres, struct nodegpu_inv *out,
                  struct err *e)
{
    struct gres_list l;

    memset(out, 0, sizeof(*out));
    if (gpus == NULL || json_is_null(gpus)) {
        if (gres != NULL && gres_parse(gres, &l, e) < 0)
            return err_prefix(e, "gres");
        if (gres != NULL)
            from_list(&l, out);
        build_model(out);
        return 0;
    }
    if (!json_is_array(gpus) || json_array_size(gpus) > SCHED_GPU_MAX)
        return err_inval(e, "gpus: expected an array of at most %d GPUs",
                         SCHED_GPU_MAX);
    for (size_t i = 0; i < json_array_size(gpus); i++) {
        if (parse_one(gpus, i, out, e) < 0) {
            nodegpu_fini(out);
            return -1;
        }
    }
    build_model(out);
    return 0;
}

static void copy_gpu(struct nodegpu_inv *out, const struct nodegpu *g)
{
    struct nodegpu *c = add(out, g->index, g->type);

    c->links = xcalloc(g->n_links + 1, sizeof(*c->links));
    if (g->n_links > 0)
        memcpy(c->links, g->links, g->n_links * sizeof(*c->links));
    c->n_links = g->n_links;
}

size_t nodegpu_fit(const struct gres_list *cfg, const struct nodegpu_inv *rep,
                   struct nodegpu_inv *out)
{
    bool *taken = xcalloc(rep->n ? rep->n : 1, sizeof(*taken));
    size_t left = rep->n;

    memset(out, 0, sizeof(*out));
    /* typed items first, so that an untyped one takes only the rest */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < cfg->n; i++) {
            const struct gres_item *it = &cfg->items[i];
            uint64_t want = it->count;
            if (strcmp(it->name, "gpu") != 0 || (pass == 0) != !!it->type[0])
                continue;
            for (size_t k = 0; k < rep->n && want > 0; k++) {
                if (taken[k] ||
                    (it->type[0] && strcmp(rep->v[k].type, it->type) != 0))
                    continue;
                taken[k] = true;
                want--;
                left--;
            }
        }
    }
    for (size_t k = 0; k < rep->n; k++)
        if (taken[k])
            copy_gpu(out, &rep->v[k]);
    free(taken);
    build_model(out);
    return left;
}

static uint64_t count_type(const struct nodegpu_inv *inv, const char *type)
{
    uint64_t k = 0;

    for (size_t i = 0; i < inv->n; i++)
        k += type[0] == '\0' || strcmp(inv->v[i].type, type) == 0;
    return k;
}

int nodegpu_check(const struct gres_list *cfg, const struct nodegpu_inv *rep,
                  const char *note, char *why, size_t len)
{
    char have[256];

    for (size_t i = 0; i < cfg->n; i++) {
        const struct gres_item *it = &cfg->items[i];
        uint64_t want = gres_count(cfg, "gpu", it->type[0] ? it->type : NULL);
        uint64_t got = count_type(rep, it->type);
        int k;
        if (strcmp(it->name, "gpu") != 0 || got >= want)
            continue;
        k = snprintf(why, len,
                     "gres/gpu%s%s count reported %" PRIu64
                     " < configured %" PRIu64,
                     it->type[0] ? ":" : "", it->type, got, want);
        if (k >= 0 && (size_t)k < len && note != NULL && note[0] != '\0')
            snprintf(why + k, len - (size_t)k, " (%s)", note);
        else if (k >= 0 && (size_t)k < len && rep->n > got)
            snprintf(why + k, len - (size_t)k, " (the node reports %s)",
                     nodegpu_summary(rep, have, sizeof(have)));
        else if (k >= 0 && (size_t)k < len)
            snprintf(why + k, len - (size_t)k,
                     " (the node found %s: check its gres.conf, and the "
                     "NVIDIA driver for AutoDetect=nvml)",
                     rep->n ? "too few" : "none");
        return -1;
    }
    return 0;
}

char *nodegpu_summary(const struct nodegpu_inv *inv, char *buf, size_t len)
{
    struct gres_list l = {0};

    for (size_t i = 0; i < inv->n; i++) {
        size_t k = 0;
        while (k < l.n && strcmp(l.items[k].type, inv->v[i].type) != 0)
            k++;
        if (k == l.n) {
            if (l.n == GRES_MAX_ITEMS)
                continue;
            l.n++;
            snprintf(l.items[k].name, sizeof(l.items[k].name), "gpu");
            snprintf(l.items[k].type, sizeof(l.items[k].type), "%s",
                     inv->v[i].type);
        }
        l.items[k].count++;
    }
    return gres_format(&l, buf, len);
}

json_t *nodegpu_to_json(const struct nodegpu_inv *inv)
{
    json_t *a = json_array();

    for (size_t i = 0; i < inv->n; i++) {
        const struct nodegpu *g = &inv->v[i];
        json_t *links = json_array();
        for (size_t k = 0; k < g->n_links; k++)
            json_array_append_new(links, json_integer(g->links[k]));
        json_array_append_new(a, json_pack("{s:i, s:s, s:o}", "index",
                                           (int)g->index, "type", g->type,
                                           "links", links));
    }
    return a;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

char *nodegpu_idx_list(const uint32_t *idx, size_t n, char *buf, size_t len)
{
    uint32_t *s = xcalloc(n ? n : 1, sizeof(*s));
    size_t off = 0;

    if (n > 0)
        memcpy(s, idx, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_u32);
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++) {
        size_t k = i;
        int w;
        while (k + 1 < n && s[k + 1] == s[k] + 1)
            k++;
        if (k == i)
            w = snprintf(buf + off, len - off, "%s%u", i ? "," : "", s[i]);
        else
            w = snprintf(buf + off, len - off, "%s%u-%u", i ? "," : "", s[i],
                         s[k]);
        if (w < 0)
            break;
        off += (size_t)w;
        i = k;
    }
    free(s);
    return buf;
}
