/*
 * PartitionName= lines: PartitionName=DEFAULT templates, Priority= as the
 * shorthand for both PriorityTier and PriorityJobFactor (explicit ones win,
 * wherever they stand on the line), OverSubscribe, per-partition
 * PreemptMode, and the DefaultTime/MaxTime rule.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/value.h"
#include "common/xalloc.h"

/* Partition priorities are 16-bit in Slurm, with two values reserved. */
#define PART_MAX_PRIORITY 65533

static const struct conf_enum oversub_names[] = {
    {"NO", CONF_OVERSUB_NO},
    {"YES", CONF_OVERSUB_YES},
    {"EXCLUSIVE", CONF_OVERSUB_EXCLUSIVE},
    {"FORCE", CONF_OVERSUB_FORCE},
    {NULL, 0},
};

/* Nodes=: checked here for syntax, resolved against the nodes later (they
 * may be defined after the partition). */
static int parse_nodes(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf_part *p = obj;
    struct hostlist *hl;

    (void)ctx;
    if (strcasecmp(val, "ALL") != 0) {
        hl = hostlist_expand(val, e);
        if (hl == NULL)
            return -1;
        hostlist_destroy(hl);
    }
    free(p->nodes_expr);
    p->nodes_expr = xstrdup(val);
    return 0;
}

static int parse_priority(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf_part *p = obj;
    uint64_t v;

    (void)ctx;
    if (value_parse_u64(val, 0, PART_MAX_PRIORITY, &v, e) < 0)
        return -1;
    p->priority_tier = (uint32_t)v;
    p->priority_job_factor = (uint32_t)v;
    return 0;
}

/* OverSubscribe=NO|EXCLUSIVE|YES[:N]|FORCE[:N] */
static int parse_oversub(void *ctx, void *obj, const char *val, struct err *e)
{
    struct conf_part *p = obj;
    const char *colon = strchr(val, ':');
    char *word = xstrndup(val, colon ? (size_t)(colon - val) : strlen(val));
    uint64_t count = 0;
    int mode, rc = -1;

    (void)ctx;
    if (conf_enum_parse(oversub_names, word, &mode, e) < 0)
        goto out;
    if (colon != NULL) {
        if (mode != CONF_OVERSUB_YES && mode != CONF_OVERSUB_FORCE) {
            err_set(e, "only YES and FORCE take a :COUNT");
            goto out;
        }
        if (value_parse_u64(colon + 1, 1, 65535, &count, e) < 0)
            goto out;
    }
    p->oversubscribe = (enum conf_oversubscribe)mode;
    p->oversubscribe_count = (uint32_t)count;
    rc = 0;
out:
    free(word);
    return rc;
}

static void print_oversub(const void *obj, FILE *fp, const char *pre,
                          const char *suf)
{
    const struct conf_part *p = obj;

    fprintf(fp, "%sOverSubscribe=%s", pre,
            conf_enum_name(oversub_names, (int)p->oversubscribe));
    if (p->oversubscribe_count > 0)
        fprintf(fp, ":%u", p->oversubscribe_count);
    fputs(suf, fp);
}

static json_t *json_oversub(const void *obj)
{
    const struct conf_part *p = obj;

    return json_pack("{s:s, s:i}", "mode",
                     conf_enum_name(oversub_names, (int)p->oversubscribe),
                     "count", (int)p->oversubscribe_count);
}

static int parse_part_preempt(void *ctx, void *obj, const char *val,
                              struct err *e)
{
    struct conf_part *p = obj;

    (void)ctx;
    if (conf_preempt_parse(val, &p->preempt_mode, e) < 0)
        return -1;
    p->preempt_mode_inherited = false;
    return 0;
}

static void print_part_preempt(const void *obj, FILE *fp, const char *pre,
                               const char *suf)
{
    char buf[64];

    fprintf(fp, "%sPreemptMode=%s%s", pre,
            conf_preempt_format(&((const struct conf_part *)obj)->preempt_mode,
                                buf, sizeof(buf)),
            suf);
}

static json_t *json_part_preempt(const void *obj)
{
    char buf[64];

    return json_string(conf_preempt_format(
        &((const struct conf_part *)obj)->preempt_mode, buf, sizeof(buf)));
}

#define OFF(f) offsetof(struct conf_part, f)
#define K_STR(n, j, f, fl)                                                     \
    {                                                                          \
        .name = n, .json = j, .kind = CK_STR, .off = OFF(f), .flags = fl       \
    }
#define K_INT(n, j, f, lo, hi, fl)                                             \
    {                                                                          \
        .name = n, .json = j, .kind = CK_U32, .off = OFF(f), .min = lo,        \
        .max = hi, .flags = fl                                                 \
    }
#define K_KIND(k, n, j, f)                                                     \
    {                                                                          \
        .name = n, .json = j, .kind = k, .off = OFF(f)                         \
    }
#define K_MEM(n, j, f)                                                         \
    {                                                                          \
        .name = n, .json = j, .kind = CK_MEM, .off = OFF(f),                   \
        .flags = CKF_OMIT_ZERO                                                 \
    }
#define K_CUSTOM(n, j, p, pr, js, fl)                                          \
    {                                                                          \
        .name = n, .json = j, .kind = CK_CUSTOM, .parse = p, .print = pr,      \
        .to_json = js, .flags = fl                                             \
    }

void conf_part_mem(const struct conf *c, const struct conf_part *p,
                   struct conf_mem *out)
{
    const struct conf_mem *pm = &p->mem, *g = &c->mem;
    bool def =
        pm->def_per_cpu_mib || pm->def_per_node_mib || pm->def_per_gpu_mib;
    bool max = pm->max_per_cpu_mib || pm->max_per_node_mib;

    out->def_per_cpu_mib = def ? pm->def_per_cpu_mib : g->def_per_cpu_mib;
    out->def_per_node_mib = def ? pm->def_per_node_mib : g->def_per_node_mib;
    out->def_per_gpu_mib = def ? pm->def_per_gpu_mib : g->def_per_gpu_mib;
    out->max_per_cpu_mib = max ? pm->max_per_cpu_mib : g->max_per_cpu_mib;
    out->max_per_node_mib = max ? pm->max_per_node_mib : g->max_per_node_mib;
}

/* The keys of a PartitionName= line after its name, in print order; Nodes
 * is printed by conf_print, which knows the node names. */
const struct conf_key conf_part_keys[] = {
    K_CUSTOM("Nodes", NULL, parse_nodes, NULL, NULL, CKF_NOPRINT),
    K_KIND(CK_BOOL, "Default", "default", is_default),
    K_KIND(CK_TIME, "MaxTime", "max_time_s", max_time_s),
    K_KIND(CK_TIME, "DefaultTime", "default_time_s", default_time_s),
    {.name = "State",
     .json = "state",
     .kind = CK_ENUM,
     .off = OFF(state),
     .enums = conf_part_state_names},
    K_CUSTOM("Priority", NULL, parse_priority, NULL, NULL, CKF_NOPRINT),
    K_INT("PriorityTier", "priority_tier", priority_tier, 0, PART_MAX_PRIORITY,
          CKF_LATE),
    K_INT("PriorityJobFactor", "priority_job_factor", priority_job_factor, 0,
          PART_MAX_PRIORITY, CKF_LATE),
    K_STR("AllowAccounts", "allow_accounts", allow_accounts, 0),
    K_STR("AllowGroups", "allow_groups", allow_groups, 0),
    K_STR("AllowQos", "allow_qos", allow_qos, 0),
    K_STR("DenyAccounts", "deny_accounts", deny_accounts, CKF_OMIT_EMPTY),
    K_STR("DenyQos", "deny_qos", deny_qos, CKF_OMIT_EMPTY),
    K_STR("TRESBillingWeights", "tres_billing_weights", tres_billing_weights,
          CKF_OMIT_EMPTY),
    K_STR("QOS", "qos", qos, CKF_OMIT_EMPTY),
    K_INT("MaxNodes", "max_nodes", max_nodes, 0, CONF_UNLIMITED, CKF_UNLIMITED),
    K_INT("MinNodes", "min_nodes", min_nodes, 0, CONF_UNLIMITED - 1, 0),
    K_CUSTOM("OverSubscribe", "oversubscribe", parse_oversub, print_oversub,
             json_oversub, 0),
    K_CUSTOM("Shared", NULL, parse_oversub, NULL, NULL, CKF_NOPRINT),
    K_CUSTOM("PreemptMode", "preempt_mode", parse_part_preempt,
             print_part_preempt, json_part_preempt, 0),
    K_INT("GraceTime", "grace_time_s", grace_time_s, 0, 31536000, 0),
    K_KIND(CK_BOOL, "ExclusiveUser", "exclusive_user", exclusive_user),
    K_MEM("DefMemPerCPU", "def_mem_per_cpu_mib", mem.def_per_cpu_mib),
    K_MEM("DefMemPerGPU", "def_mem_per_gpu_mib", mem.def_per_gpu_mib),
    K_MEM("DefMemPerNode", "def_mem_per_node_mib", mem.def_per_node_mib),
    K_MEM("MaxMemPerCPU", "max_mem_per_cpu_mib", mem.max_per_cpu_mib),
    K_MEM("MaxMemPerNode", "max_mem_per_node_mib", mem.max_per_node_mib),
    {.name = NULL},
};

static uint64_t part_bit(const char *name)
{
    const struct conf_key *k = conf_key_find(conf_part_keys, name);

    return (uint64_t)1 << (k - conf_part_keys);
}

void conf_part_tmpl_init(struct conf_part_tmpl *t)
{
    struct conf_part *p = &t->part;

    memset(t, 0, sizeof(*t));
    p->nodes_expr = xstrdup("");
    p->max_time_s = TIMEFMT_INFINITE;
    p->default_time_s = TIMEFMT_INFINITE;
    p->state = CONF_PART_UP;
    p->priority_tier = 1;
    p->priority_job_factor = 1;
    p->allow_accounts = xstrdup("ALL");
    p->allow_groups = xstrdup("ALL");
    p->allow_qos = xstrdup("ALL");
    p->deny_accounts = xstrdup("");
    p->deny_qos = xstrdup("");
    p->tres_billing_weights = xstrdup("");
    p->qos = xstrdup("");
    p->max_nodes = CONF_UNLIMITED;
    p->oversubscribe = CONF_OVERSUB_NO;
    p->preempt_mode_inherited = true;
}

void conf_part_free(struct conf_part *p)
{
    free(p->name);
    free(p->nodes_expr);
    free(p->node_idx);
    free(p->allow_accounts);
    free(p->allow_groups);
    free(p->allow_qos);
    free(p->deny_accounts);
    free(p->deny_qos);
    free(p->tres_billing_weights);
    free(p->qos);
}

void conf_part_tmpl_free(struct conf_part_tmpl *t)
{
    conf_part_free(&t->part);
}

static void part_tmpl_copy(struct conf_part_tmpl *dst,
                           const struct conf_part_tmpl *src)
{
    const struct conf_part *s = &src->part;
    struct conf_part *d = &dst->part;

    *dst = *src;
    d->name = NULL;
    d->node_idx = NULL;
    d->nodes_expr = xstrdup(s->nodes_expr);
    d->allow_accounts = xstrdup(s->allow_accounts);
    d->allow_groups = xstrdup(s->allow_groups);
    d->allow_qos = xstrdup(s->allow_qos);
    d->deny_accounts = xstrdup(s->deny_accounts);
    d->deny_qos = xstrdup(s->deny_qos);
    d->tres_billing_weights = xstrdup(s->tres_billing_weights);
    d->qos = xstrdup(s->qos);
}

/* One pass over the line's keys: the plain ones, or (late) the ones that
 * override a shorthand. */
static int part_apply(struct conf *c, const struct conf_line *ln,
                      struct conf_part_tmpl *t, bool late, uint64_t *line_set)
{
    int rc = 0;
    struct err e;

    for (size_t i = 1; i < ln->n; i++) {
        const struct conf_pair *p = &ln->pairs[i];
        const struct conf_key *k = conf_key_find(conf_part_keys, p->key);
        struct conf_loc loc = {ln->file, p->line, p->col};
        uint64_t bit;

        if (k == NULL) {
            if (!late)
                conf_diag_at(c, CONF_WARNING, &loc,
                             "unknown PartitionName key '%.64s' ignored",
                             p->key);
            continue;
        }
        if (((k->flags & CKF_LATE) != 0) != late)
            continue;
        if (conf_key_set(k, c, &t->part, p->value, &e) < 0) {
            conf_diag_at(c, CONF_ERROR, &loc, "%s", e.text);
            rc = -1;
            continue;
        }
        bit = (uint64_t)1 << (k - conf_part_keys);
        if (*line_set & bit)
            conf_diag_at(c, CONF_WARNING, &loc,
                         "%s given twice on this line; the last value is "
                         "used",
                         k->name);
        *line_set |= bit;
        t->set |= bit;
        if (k->parse == parse_nodes)
            t->part.nodes_loc = loc;
    }
    return rc;
}

/* The finished partition: name unique, DefaultTime within MaxTime. */
static int part_finish(struct conf *c, const struct conf_line *ln,
                       struct conf_part_tmpl *t)
{
    struct conf_part *p = &t->part;
    const struct conf_part *dup;
    char a[TIMEFMT_BUFLEN], b[TIMEFMT_BUFLEN];

    p->loc = (struct conf_loc){ln->file, ln->pairs[0].line, ln->pairs[0].col};
    if ((dup = conf_part_find(c, ln->pairs[0].value)) != NULL) {
        conf_diag_at(c, CONF_ERROR, &p->loc,
                     "partition %s already defined at %s:%d", dup->name,
                     dup->loc.file, dup->loc.line);
        return -1;
    }
    if (strpbrk(p->qos, ", \t") != NULL) {
        conf_diag_at(c, CONF_ERROR, &p->loc,
                     "partition %s: QOS=%.64s: one QOS name expected (the "
                     "partition QOS)",
                     ln->pairs[0].value, p->qos);
        return -1;
    }
    if (!(t->set & part_bit("DefaultTime")))
        p->default_time_s = p->max_time_s;
    if (p->default_time_s > p->max_time_s) {
        conf_diag_at(c, CONF_ERROR, &p->loc,
                     "partition %s: DefaultTime=%s is longer than "
                     "MaxTime=%s",
                     ln->pairs[0].value,
                     timefmt_format(p->default_time_s, a, sizeof(a)),
                     timefmt_format(p->max_time_s, b, sizeof(b)));
        return -1;
    }
    return 0;
}

void conf_part_line(struct conf *c, const struct conf_line *ln)
{
    struct conf_part_tmpl t;
    const char *name = ln->pairs[0].value;
    uint64_t line_set = 0;
    int rc;

    part_tmpl_copy(&t, &c->priv->part_default);
    rc = part_apply(c, ln, &t, false, &line_set);
    if (part_apply(c, ln, &t, true, &line_set) < 0 || rc < 0)
        goto out;
    if (strcasecmp(name, "DEFAULT") == 0) {
        conf_part_tmpl_free(&c->priv->part_default);
        c->priv->part_default = t;
        return;
    }
    if (part_finish(c, ln, &t) < 0)
        goto out;
    t.part.name = xstrdup(name);
    c->parts = xreallocarray(c->parts, c->n_parts + 1, sizeof(*c->parts));
    c->parts[c->n_parts++] = t.part;
    return;
out:
    conf_part_tmpl_free(&t);
}
