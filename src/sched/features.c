/*
 * The feature expression of -C/--constraint, parsed by recursive descent
 * into a small tree for the per-node part, with the top-level counts
 * ("a*2") and one bracket ("[a|b]") kept aside for the choice of a set of
 * nodes (features_pick).  & binds tighter than |.
 */
#include "sched/features.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define FEAT_NAME_MAX 64

enum feat_op { FEAT_NAME, FEAT_AND, FEAT_OR };

struct feat_node {
    enum feat_op op;
    int left, right; /* AND, OR: node numbers */
    char name[FEAT_NAME_MAX];
    uint32_t count; /* NAME*count; 0: none */
    bool bracket;   /* the group [..] */
};

struct feat_count {
    char name[FEAT_NAME_MAX];
    uint32_t count;
};

struct features_req {
    struct feat_node nodes[2 * FEATURES_MAX_TERMS];
    int n;
    int root; /* per-node part; -1: none */
    struct feat_count counts[FEATURES_MAX_TERMS];
    size_t ncounts;
    struct feat_count alts[FEATURES_MAX_TERMS]; /* [a|b]: choices */
    size_t nalts;
};

struct parser {
    const char *s, *p;
    struct features_req *r;
    struct err *e;
    int depth;
};

static int fail(struct parser *ps, const char *why)
{
    err_inval(ps->e,
              "Invalid feature specification: %s at offset %zu of \"%.200s\"",
              why, (size_t)(ps->p - ps->s), ps->s);
    return -1;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("_-.:+=/@", c) != NULL);
}

static int new_node(struct parser *ps, enum feat_op op, int l, int r)
{
    struct feat_node *n;

    if (ps->r->n >= (int)(sizeof(ps->r->nodes) / sizeof(ps->r->nodes[0])))
        return fail(ps, "too many terms");
    n = &ps->r->nodes[ps->r->n];
    memset(n, 0, sizeof(*n));
    n->op = op;
    n->left = l;
    n->right = r;
    return ps->r->n++;
}

/* NAME['*'COUNT] */
static int parse_name(struct parser *ps)
{
    size_t len = 0;
    int k;

    while (name_char(ps->p[len]))
        len++;
    if (len == 0)
        return fail(ps, "expected a feature name");
    if (len >= FEAT_NAME_MAX)
        return fail(ps, "feature name too long");
    if ((k = new_node(ps, FEAT_NAME, -1, -1)) < 0)
        return -1;
    memcpy(ps->r->nodes[k].name, ps->p, len);
    ps->p += len;
    if (*ps->p == '*') {
        unsigned long c = 0;
        ps->p++;
        if (*ps->p < '0' || *ps->p > '9')
            return fail(ps, "expected a count after '*'");
        while (*ps->p >= '0' && *ps->p <= '9' && c <= 100000)
            c = c * 10 + (unsigned long)(*ps->p++ - '0');
        if (c == 0 || c > 100000)
            return fail(ps, "count out of range 1-100000");
        ps->r->nodes[k].count = (uint32_t)c;
    }
    return k;
}

static int parse_or(struct parser *ps);

static int parse_term(struct parser *ps)
{
    int k;
    char close;

    if (*ps->p != '(' && *ps->p != '[')
        return parse_name(ps);
    close = *ps->p == '(' ? ')' : ']';
    if (++ps->depth > 16)
        return fail(ps, "nested too deep");
    ps->p++;
    if ((k = parse_or(ps)) < 0)
        return -1;
    if (*ps->p != close)
        return fail(ps, close == ')' ? "expected ')'" : "expected ']'");
    ps->p++;
    ps->depth--;
    if (close == ']') {
        int b = new_node(ps, FEAT_AND, k, -1); /* a marker over the group */
        if (b < 0)
            return -1;
        ps->r->nodes[b].bracket = true;
        return b;
    }
    return k;
}

static int parse_and(struct parser *ps)
{
    int l = parse_term(ps);

    while (l >= 0 && *ps->p == '&') {
        int r;
        ps->p++;
        if ((r = parse_term(ps)) < 0)
            return -1;
        l = new_node(ps, FEAT_AND, l, r);
    }
    return l;
}

static int parse_or(struct parser *ps)
{
    int l = parse_and(ps);

    while (l >= 0 && *ps->p == '|') {
        int r;
        ps->p++;
        if ((r = parse_and(ps)) < 0)
            return -1;
        l = new_node(ps, FEAT_OR, l, r);
    }
    return l;
}

/* Whether node k holds a count or a bracket anywhere below it. */
static bool has_set_term(const struct features_req *r, int k)
{
    const struct feat_node *n = &r->nodes[k];

    if (n->op == FEAT_NAME)
        return n->count > 0;
    if (n->bracket)
        return true;
    return has_set_term(r, n->left) ||
           (n->right >= 0 && has_set_term(r, n->right));
}

/* The choices of a bracket: NAME['*'N] joined by | only. */
static int take_alts(struct parser *ps, int k)
{
    const struct feat_node *n = &ps->r->nodes[k];

    if (n->op == FEAT_OR)
        return take_alts(ps, n->left) < 0 ? -1 : take_alts(ps, n->right);
    if (n->op != FEAT_NAME)
        return fail(ps, "a bracket holds names joined by '|' only");
    strcpy(ps->r->alts[ps->r->nalts].name, n->name);
    ps->r->alts[ps->r->nalts++].count = n->count;
    return 0;
}

static int and_into_root(struct parser *ps, int k)
{
    if (ps->r->root < 0) {
        ps->r->root = k;
        return 0;
    }
    ps->r->root = new_node(ps, FEAT_AND, ps->r->root, k);
    return ps->r->root < 0 ? -1 : 0;
}

/* Split the top-level & chain into counts, a bracket and the rest. */
static int split_top(struct parser *ps, int k)
{
    struct features_req *r = ps->r;
    struct feat_node *n = &r->nodes[k];

    if (n->op == FEAT_AND && !n->bracket)
        return split_top(ps, n->left) < 0 ? -1 : split_top(ps, n->right);
    if (n->bracket) {
        if (r->nalts > 0)
            return fail(ps, "only one [...] group is allowed");
        return take_alts(ps, n->left);
    }
    if (n->op == FEAT_NAME && n->count > 0) {
        strcpy(r->counts[r->ncounts].name, n->name);
        r->counts[r->ncounts++].count = n->count;
        return 0;
    }
    if (has_set_term(r, k))
        return fail(ps, "counts (*N) and [...] must be joined to the rest "
                        "by '&' at the top level");
    return and_into_root(ps, k);
}

struct features_req *features_parse(const char *s, struct err *e)
{
    struct features_req *r = xcalloc(1, sizeof(*r));
    struct parser ps = {s, s, r, e, 0};
    int top;

    r->root = -1;
    if (strlen(s) > FEATURES_MAX_LEN) {
        err_inval(e, "Invalid feature specification: longer than %d bytes",
                  FEATURES_MAX_LEN);
        goto error;
    }
    if ((top = parse_or(&ps)) < 0)
        goto error;
    if (*ps.p != '\0') {
        fail(&ps, "unexpected character");
        goto error;
    }
    if (split_top(&ps, top) < 0)
        goto error;
    return r;
error:
    free(r);
    errno = EINVAL;
    return NULL;
}

void features_free(struct features_req *r)
{
    free(r);
}

bool features_has(const char *feats, const char *name)
{
    size_t len = strlen(name);

    if (feats == NULL)
        return false;
    for (const char *p = feats; *p != '\0';) {
        size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, name, len) == 0)
            return true;
        p += l;
        if (*p == ',')
            p++;
    }
    return false;
}

static bool eval(const struct features_req *r, int k, const char *feats)
{
    const struct feat_node *n = &r->nodes[k];

    switch (n->op) {
    case FEAT_NAME:
        return features_has(feats, n->name);
    case FEAT_AND:
        return eval(r, n->left, feats) && eval(r, n->right, feats);
    case FEAT_OR:
        return eval(r, n->left, feats) || eval(r, n->right, feats);
    }
    return false;
}

static bool root_ok(const struct features_req *r, const char *feats)
{
    return r->root < 0 || eval(r, r->root, feats);
}

bool features_node_ok(const struct features_req *r, const char *feats)
{
    bool alt = r->nalts == 0;

    for (size_t i = 0; i < r->nalts && !alt; i++)
        alt = features_has(feats, r->alts[i].name);
    return alt && root_ok(r, feats);
}

bool features_for_set(const struct features_req *r)
{
    return r != NULL && (r->ncounts > 0 || r->nalts > 0);
}

uint32_t features_min_nodes(const struct features_req *r)
{
    uint32_t sum = 0, alt = 0;

    if (r == NULL)
        return 0;
    for (size_t i = 0; i < r->ncounts; i++)
        sum += r->counts[i].count;
    for (size_t i = 0; i < r->nalts; i++)
        alt = r->alts[i].count > alt ? r->alts[i].count : alt;
    return sum + alt;
}

/* Take up to k unused candidates that have name (any with NULL). */
static uint32_t take(const struct features_req *r, const char *alt,
                     const char *name, const char *const *feats, size_t n,
                     uint32_t k, bool *used, size_t *out, uint32_t got)
{
    uint32_t t = 0;

    for (size_t i = 0; i < n && t < k; i++) {
        if (used[i] || !root_ok(r, feats[i]) ||
            (alt != NULL && !features_has(feats[i], alt)) ||
            (name != NULL && !features_has(feats[i], name)))
            continue;
        used[i] = true;
        out[got + t++] = i;
    }
    return t;
}

/* One choice of the bracket (alt NULL: none): the counts first, then
 * any node the rest of the expression allows. */
static bool pick_with(const struct features_req *r, const char *alt,
                      uint32_t alt_count, const char *const *feats, size_t n,
                      uint32_t want, bool *used, size_t *out)
{
    uint32_t got = 0;

    memset(used, 0, n * sizeof(*used));
    if (alt_count > 0) {
        if (take(r, NULL, alt, feats, n, alt_count, used, out, got) < alt_count)
            return false;
        got += alt_count;
        alt = NULL; /* the rest need not have it */
    }
    for (size_t c = 0; c < r->ncounts; c++) {
        uint32_t k = r->counts[c].count;
        if (got + k > want ||
            take(r, alt, r->counts[c].name, feats, n, k, used, out, got) < k)
            return false;
        got += k;
    }
    if (got > want)
        return false;
    got += take(r, alt, NULL, feats, n, want - got, used, out, got);
    return got == want;
}

bool features_pick(const struct features_req *r, const char *const *feats,
                   size_t n, uint32_t want, size_t *out)
{
    bool *used, ok = false;

    if (r == NULL) {
        for (size_t i = 0; i < want && i < n; i++)
            out[i] = i;
        return n >= want;
    }
    used = xcalloc(n ? n : 1, sizeof(*used));
    if (r->nalts == 0)
        ok = pick_with(r, NULL, 0, feats, n, want, used, out);
    for (size_t a = 0; a < r->nalts && !ok; a++)
        ok = pick_with(r, r->alts[a].name, r->alts[a].count, feats, n, want,
                       used, out);
    free(used);
    return ok;
}
